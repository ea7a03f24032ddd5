// `graspsim validate mcube` and `graspsim calibrate mcube`: simulate real MCube pushes and
// compare (issue 5), and fit a surface's friction to them.

#include "mcube_commands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "core/error.h"
#include "core/parallel.h"
#include "io/mcube.h"
#include "io/json_text.h"
#include "io/mcube_batch.h"
#include "io/mcube_validate.h"

namespace gs = graspsim;
namespace fs = std::filesystem;
using namespace graspsim::mcube;

namespace {

bool is_recording(const fs::path& p) { return p.extension() == ".h5" || p.extension() == ".json"; }

// Files named on the command line, folders expanded recursively (sorted, for a stable order).
std::vector<std::string> expand(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(p))
      if (e.is_regular_file() && is_recording(e.path())) found.push_back(e.path().string());
    if (found.empty()) throw gs::InputError("folder '" + p + "' holds no MCube recordings (.h5 or .json)");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// The dataset's objects/ folder: given, or the nearest one above the first recording, or the
// vendored copy beside this checkout.
fs::path objects_dir(const McubeArgs& args, const std::vector<std::string>& files) {
  if (!args.objects.empty()) return args.objects;
  if (!files.empty())
    for (fs::path d = fs::absolute(files.front()).parent_path(); !d.empty() && d != d.root_path(); d = d.parent_path())
      if (std::error_code ec; fs::exists(d / "objects" / "rect1_ext.npy", ec)) return d / "objects";
  return fs::path(GRASPSIM_SHARED_DIR) / "data" / "mcube-push" / "objects";
}

fs::path surfaces_file(const McubeArgs& args) {
  return args.surfaces.empty() ? fs::path(GRASPSIM_SOURCE_DIR) / "scenes" / "validation" / "mcube_surfaces.yaml"
                               : fs::path(args.surfaces);
}

ValidateOptions base_options(const McubeArgs& args, const std::vector<std::string>& files) {
  if (args.path_mode != "recorded" && args.path_mode != "nominal")
    throw gs::InputError("--path must be 'recorded' or 'nominal' (got '" + args.path_mode + "')");
  ValidateOptions o;
  o.objects_dir = objects_dir(args, files);
  o.surfaces = read_surface_table(surfaces_file(args));
  o.nominal_path = args.path_mode == "nominal";
  o.sets = args.sets;
  if (!args.stepper.empty()) o.sets.push_back("options.stepper=" + args.stepper);
  return o;
}

FitSettings fit_settings(const McubeArgs& args) {
  if (!(args.force_weight >= 0) || !std::isfinite(args.force_weight))
    throw gs::InputError("--force-weight must be a finite number >= 0 (got " + gs::show(args.force_weight) + ")");
  if (!(args.tolerance > 0) || !(args.tolerance < 0.78))
    throw gs::InputError("--tolerance must be in (0, 0.78) (got " + gs::show(args.tolerance) + ")");
  return {args.fit_pusher, args.tolerance, args.force_weight, args.jobs};
}

void write_trace(const fs::path& dir, const PushTrace& tr) {
  if (!tr.force_t.empty()) {
    std::ofstream force(dir / "force.csv");
    force << "t,sim_fx_n,sim_fy_n,real_fx_n,real_fy_n\n";
    char line[160];
    for (std::size_t i = 0; i < tr.force_t.size(); ++i) {
      std::snprintf(line, sizeof line, "%.6f,%.4f,%.4f,%.4f,%.4f\n", tr.force_t[i], tr.sim_fx[i], tr.sim_fy[i], tr.real_fx[i],
                    tr.real_fy[i]);
      force << line;
    }
  }
  std::ofstream out(dir / "trajectory.csv");
  out << "t,sim_x_mm,sim_y_mm,sim_yaw_deg,real_x_mm,real_y_mm,real_yaw_deg\n";
  char line[256];
  const double deg = 180 / M_PI;
  for (std::size_t i = 0; i < tr.t.size(); ++i) {
    std::snprintf(line, sizeof line, "%.6f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", tr.t[i], tr.sim_x[i] * 1e3, tr.sim_y[i] * 1e3,
                  tr.sim_yaw[i] * deg, tr.real_x[i] * 1e3, tr.real_y[i] * 1e3, tr.real_yaw[i] * deg);
    out << line;
  }
}

void print_row(const nlohmann::json& r) {
  if (r["status"] != "ok") return;
  std::printf("%-72s sim (%6.1f, %6.1f) mm %6.1f deg  real (%6.1f, %6.1f) mm %6.1f deg  err %5.1f mm %5.1f deg\n",
              fs::path(r["file"].get<std::string>()).filename().string().c_str(), r["sim_dx_mm"].get<double>(),
              r["sim_dy_mm"].get<double>(), r["sim_dyaw_deg"].get<double>(), r["real_dx_mm"].get<double>(),
              r["real_dy_mm"].get<double>(), r["real_dyaw_deg"].get<double>(), r["pos_err_mm"].get<double>(),
              r["yaw_err_deg"].get<double>());
}

}  // namespace

namespace {

nlohmann::json error_row(const std::string& path, const std::exception& e) {
  std::string what = e.what();
  if (what.find(path) == std::string::npos) what = "MCube file '" + path + "': " + what;
  return {{"file", path}, {"status", "error"}, {"error", what}};
}

// One recording simulated into `out_dir`: its result row, or an error row (a bad file does not
// stop a folder run: it is reported and counted).
nlohmann::json validate_one(const PushFile& f, ValidateOptions o, const fs::path& out_dir) {
  try {
    o.out_dir = out_dir;
    const PushResult r = validate_push(f, o);
    write_trace(o.out_dir, r.trace);
    return to_json(r);
  } catch (const std::exception& e) {
    return error_row(f.path, e);
  }
}

nlohmann::json validate_one(const std::string& path, const ValidateOptions& o, const fs::path& out_dir) {
  try {
    return validate_one(read_push_file(path), o, out_dir);
  } catch (const std::exception& e) {
    return error_row(path, e);
  }
}

// Writes a row to results.jsonl (flushed) and to stdout as JSON or as a line of text.
void emit_row(const nlohmann::json& row, const McubeArgs& args, std::ofstream& jsonl) {
  if (row["status"] != "ok") std::cerr << "error: " << row["error"].get<std::string>() << "\n";
  jsonl << gs::json_text(row) << "\n" << std::flush;
  if (args.json) std::printf("%s\n", gs::json_text(row).c_str());
  else print_row(row);
  std::fflush(stdout);
}

void print_summary(const nlohmann::json& s, const McubeArgs& args, const char* what) {
  if (std::isfinite(s.value("median_pos_err_mm", std::nan(""))))
    std::printf("%d files, %d failed; median final error%s %.2f mm, %.2f deg (results in %s)\n", s["files"].get<int>(),
                s["failed"].get<int>(), what, s["median_pos_err_mm"].get<double>(), s.value("median_yaw_err_deg", 0.0),
                args.out.c_str());
  else  // (no file ran: there is no median to print)
    std::printf("%d files, %d failed; no file ran (results in %s)\n", s["files"].get<int>(), s["failed"].get<int>(),
                args.out.c_str());
}

// validate mcube --holdout BY: the fitted run (the surface table's friction, in out/fitted/), then
// one fold per group, its friction fitted without the group's files and the group run with it.
int validate_holdout(const McubeArgs& args, const std::vector<std::string>& paths, const ValidateOptions& base) {
  std::vector<PushFile> files;
  std::vector<std::string> kept;
  std::vector<nlohmann::json> failed;
  for (const std::string& p : paths) {
    try {
      files.push_back(read_push_file(p));
      kept.push_back(p);
    } catch (const gs::InputError& e) {
      failed.push_back({{"file", p}, {"status", "error"}, {"error", e.what()}});
    }
  }
  std::vector<HoldoutFold> folds = holdout_folds(files, args.holdout);
  std::ofstream jsonl(fs::path(args.out) / "results.jsonl");
  for (const auto& row : failed) emit_row(row, args, jsonl);
  const auto say = [&](const std::string& line) {
    (args.json ? std::cerr : std::cout) << line << std::endl;
  };
  say("fitted: the surface table's friction on all " + std::to_string(kept.size()) + " files");
  std::vector<nlohmann::json> fitted(kept.size()), held(kept.size());
  gs::run_ordered(
      kept.size(), args.jobs,
      [&](std::size_t i) { fitted[i] = validate_one(files[i], base, fs::path(args.out) / "fitted" / fs::path(kept[i]).stem()); },
      [](std::size_t) {});
  nlohmann::json fold_summaries = nlohmann::json::array();
  for (HoldoutFold& fold : folds) {
    say("held out " + fold.held_out + " (" + std::to_string(fold.test.size()) + " files): fitting on the other " +
        std::to_string(fold.train.size()));
    fit_fold(fold, files, base, fit_settings(args), [&](const std::string& line) { say("  " + line); });
    ValidateOptions o = base;
    for (const auto& [surface, mu] : fold.friction) o.surfaces[surface] = mu;
    std::vector<nlohmann::json> rows;
    gs::run_ordered(
        fold.test.size(), args.jobs,
        [&](std::size_t k) {
          const std::size_t i = fold.test[k];
          nlohmann::json row = validate_one(files[i], o, fs::path(args.out) / fs::path(kept[i]).stem());
          row["holdout"] = fold.held_out;
          const SurfaceFriction& mu = fold.friction.at(files[i].surface);
          row["mu_ground"] = mu.mu_ground, row["mu_pusher"] = mu.mu_pusher;
          if (fold.notes.count(files[i].surface)) row["friction_note"] = fold.notes.at(files[i].surface);
          if (fitted[i]["status"] == "ok")
            row["fitted_pos_err_mm"] = fitted[i]["pos_err_mm"], row["fitted_yaw_err_deg"] = fitted[i]["yaw_err_deg"];
          held[i] = row;
        },
        [&](std::size_t k) { emit_row(held[fold.test[k]], args, jsonl); });
    for (std::size_t i : fold.test) rows.push_back(held[i]);
    std::vector<nlohmann::json> fitted_rows;
    for (std::size_t i : fold.test) fitted_rows.push_back(fitted[i]);
    nlohmann::json f = {{"held_out", fold.held_out}, {"test_files", fold.test.size()}, {"train_files", fold.train_files}};
    for (const auto& [surface, mu] : fold.friction)
      f["friction"][surface] = {{"mu_ground", mu.mu_ground}, {"mu_pusher", mu.mu_pusher}};
    if (!fold.notes.empty()) f["notes"] = fold.notes;
    const nlohmann::json h = summarize(rows), t = summarize(fitted_rows);
    for (const char* k : {"median_pos_err_mm", "median_yaw_err_deg"}) {
      f[k] = h.value(k, nlohmann::json());
      f[std::string("fitted_") + k] = t.value(k, nlohmann::json());
    }
    fold_summaries.push_back(f);
    if (!args.json) {
      char line[256];
      std::snprintf(line, sizeof line, "  %s: held out %.2f mm %.2f deg, fitted %.2f mm %.2f deg", fold.held_out.c_str(),
                    f.value("median_pos_err_mm", std::nan("")), f.value("median_yaw_err_deg", std::nan("")),
                    f.value("fitted_median_pos_err_mm", std::nan("")), f.value("fitted_median_yaw_err_deg", std::nan("")));
      say(line);
    }
  }
  held.insert(held.end(), failed.begin(), failed.end());
  fitted.insert(fitted.end(), failed.begin(), failed.end());
  nlohmann::json s = summarize(held);
  s["holdout"] = args.holdout;
  s["folds"] = fold_summaries;
  s["fitted"] = summarize(fitted);
  jsonl << gs::json_text(nlohmann::json{{"summary", s}}) << "\n" << std::flush;
  if (args.json) std::printf("%s\n", gs::json_text(nlohmann::json{{"summary", s}}).c_str());
  else {
    print_summary(s, args, " held out");
    print_summary(s["fitted"], args, " fitted");
  }
  return s["failed"].get<int>() > 0 ? 2 : 0;
}

}  // namespace

int cmd_validate_mcube(const McubeArgs& args) {
  const std::vector<std::string> files = expand(args.paths);
  const ValidateOptions base = base_options(args, files);
  fs::create_directories(args.out);
  if (!args.holdout.empty()) return validate_holdout(args, files, base);
  std::ofstream jsonl(fs::path(args.out) / "results.jsonl");
  std::vector<nlohmann::json> rows(files.size());
  gs::run_ordered(
      files.size(), args.jobs,
      [&](std::size_t i) { rows[i] = validate_one(files[i], base, fs::path(args.out) / fs::path(files[i]).stem()); },
      [&](std::size_t i) { emit_row(rows[i], args, jsonl); });
  const nlohmann::json s = summarize(rows);
  jsonl << gs::json_text(nlohmann::json{{"summary", s}}) << "\n" << std::flush;
  if (args.json) std::printf("%s\n", gs::json_text(nlohmann::json{{"summary", s}}).c_str());
  else print_summary(s, args, "");
  return s["failed"].get<int>() > 0 ? 2 : 0;
}

int cmd_calibrate_mcube(const McubeArgs& args) {
  const std::vector<std::string> paths = expand(args.paths);
  std::vector<PushFile> files;
  for (const std::string& p : paths) {
    PushFile f = read_push_file(p);
    if (f.surface == args.surface) files.push_back(std::move(f));
  }
  if (files.empty())
    throw gs::InputError("none of the " + std::to_string(paths.size()) + " files given is on surface '" + args.surface + "'");
  const ValidateOptions base = base_options(args, paths);
  const auto known = base.surfaces.find(args.surface);
  const SurfaceFriction start = known != base.surfaces.end() ? known->second : kNeutralFriction;
  std::printf("calibrating '%s' on %zu files from mu_ground %.4f, mu_pusher %.4f\n", args.surface.c_str(), files.size(),
              start.mu_ground, start.mu_pusher);
  std::fflush(stdout);
  const Calibration c = calibrate_surface(files, base, args.surface, start, fit_settings(args),
                                          [](const std::string& line) {
                                            std::printf("  %s\n", line.c_str());
                                            std::fflush(stdout);
                                          });
  std::string settings;
  for (const auto& s : base.sets) settings += " --set " + s;
  char prov[512];
  if (args.force_weight > 0) settings += " --force-weight " + gs::show(args.force_weight);
  std::snprintf(prov, sizeof prov, "graspsim calibrate mcube%s on %zu %s files (%s path%s): cost %.4f -> %.4f in %d runs",
                args.fit_pusher ? " --pusher" : "", files.size(), args.surface.c_str(), args.path_mode.c_str(),
                settings.c_str(), c.cost_before, c.cost_after, c.evaluations);
  write_surface_entry(surfaces_file(args), args.surface, c.mu, prov);
  std::printf("%s: mu_ground %.4f, mu_pusher %.4f (cost %.4f -> %.4f) written to %s\n", args.surface.c_str(), c.mu.mu_ground,
              c.mu.mu_pusher, c.cost_before, c.cost_after, surfaces_file(args).c_str());
  return 0;
}

void add_mcube_commands(CLI::App& app, McubeArgs& validate, McubeArgs& calibrate) {
  const auto common = [](CLI::App* c, McubeArgs& a) {
    c->add_option("paths", a.paths, "MCube recordings (.h5, .json) or folders of them")->required();
    c->add_option("--set", a.sets, "Override a value of the generated scene, e.g. parameters.friction_model=box (repeatable)");
    c->add_option("--stepper", a.stepper, "Stepper for the simulation (options.stepper)");
    c->add_option("--path", a.path_mode, "Pusher path: recorded (the tip as tracked) or nominal (the named straight line)")
        ->capture_default_str();
    c->add_option("--objects", a.objects, "The dataset's objects/ folder (default: found beside the recordings)");
    c->add_option("--jobs", a.jobs, "Simulations run in parallel (results do not depend on it)")->capture_default_str();
    c->add_option("--surfaces", a.surfaces, "Surface friction table (default: scenes/validation/mcube_surfaces.yaml)");
  };
  CLI::App* v = app.add_subcommand("validate", "Compare simulations with real experiments")->require_subcommand(1);
  CLI::App* vm = v->add_subcommand("mcube", "Simulate MCube planar pushes and compare with the recordings");
  common(vm, validate);
  vm->add_flag("--json", validate.json, "Print one JSON object per file, then a summary object");
  vm->add_option("--holdout", validate.holdout,
                 "Leave one out: for each shape (surface), fit the friction on the other shapes (surfaces) and "
                 "test on it; the fitted results are in OUT/fitted")
      ->check(CLI::IsMember({"shape", "surface"}));
  vm->add_option("--tolerance", validate.tolerance, "--holdout: width of the final friction bracket")->capture_default_str();
  vm->add_option("--out", validate.out, "Output folder (results.jsonl, and per file its scene and recordings)")
      ->capture_default_str();
  CLI::App* c = app.add_subcommand("calibrate", "Fit model parameters to real experiments")->require_subcommand(1);
  CLI::App* cm = c->add_subcommand("mcube", "Fit a surface's friction to MCube pushes; writes the surface table");
  common(cm, calibrate);
  cm->add_option("--surface", calibrate.surface, "Surface to fit (files on other surfaces are skipped)")->required();
  cm->add_flag("--pusher", calibrate.fit_pusher, "Also fit the pusher's friction");
  cm->add_option("--tolerance", calibrate.tolerance, "Width of the final friction bracket")->capture_default_str();
  for (auto [cmd, a] : {std::pair{cm, &calibrate}, std::pair{vm, &validate}})
    cmd->add_option("--force-weight", a->force_weight,
                    "Weight of the pusher's work (simulated over recorded, in 10 % units) in the fit, where the "
                    "force channel is usable")
        ->capture_default_str();
}
