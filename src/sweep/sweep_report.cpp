// The sweep report: results.jsonl flattened to numbers per job, then charts by parameter.

#include "sweep/sweep_report.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <sstream>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/mcube.h"
#include "sweep/svg_plot.h"

namespace graspsim {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxMetrics = 12;  // charts per parameter
constexpr std::size_t kMaxErrors = 20;

struct Job {
  std::string formulation;
  nlohmann::json parameters;
  std::map<std::string, double> values;  // flattened metrics
};

double yaw_deg(const nlohmann::json& quat) {
  const double w = quat[0], x = quat[1], y = quat[2], z = quat[3];
  return std::atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) * 180 / std::numbers::pi;
}

// Numbers under dotted names (arrays by index); booleans as 0/1; a pose's quaternion also
// gives its yaw.
void flatten(const nlohmann::json& j, const std::string& name, std::map<std::string, double>& out,
             std::vector<std::string>& order) {
  const auto put = [&](const std::string& n, double v) {
    if (out.emplace(n, v).second) order.push_back(n);
  };
  if (j.is_number()) put(name, j.get<double>());
  else if (j.is_boolean()) put(name, j.get<bool>() ? 1.0 : 0.0);
  else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, name.empty() ? k : name + "." + k, out, order);
    if (j.contains("quat") && j["quat"].is_array() && j["quat"].size() == 4 && j["quat"][0].is_number())
      put(name + ".yaw_deg", yaw_deg(j["quat"]));
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], name + "." + std::to_string(i), out, order);
  }
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw InputError(p.string() + ": not found (is this a sweep's --out directory?)");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError(p.string() + ": not valid JSON");
  return j;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}

std::string spread(const std::vector<double>& v, double scale) {
  const double m = mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  char t[64];
  std::snprintf(t, sizeof t, "%.3g ± %.2g", scale * m, scale * std::sqrt(v.size() > 1 ? ss / static_cast<double>(v.size() - 1) : 0.0));
  return t;
}

class Report {
 public:
  Report(const nlohmann::json& desc, std::vector<Job> jobs) : jobs_(std::move(jobs)) {
    for (const auto& f : desc["formulations"]) formulations_.push_back(f);
    for (const auto& p : desc["parameters"]) {
      if (!p["grid"].get<bool>()) {
        random_ = true;
        continue;
      }
      bool numeric = p["values"].size() >= 2;
      for (const auto& v : p["values"]) numeric = numeric && v.is_number();
      (numeric ? numeric_grids_ : word_grids_).push_back(p);
    }
    random_ = random_ || desc.value("samples", 1) > 1;
  }

  std::string body(const std::vector<std::string>& metrics) {
    std::ostringstream o;
    for (const auto& p : numeric_grids_) {
      o << "<h2>Over " << svg::escape(p["name"].get<std::string>()) << "</h2>\n<p>Mean per value; the band spans the minimum to "
        << "the maximum over the other parameters and samples.</p>\n";
      for (const auto& m : metrics) o << line(p, m);
    }
    if (numeric_grids_.size() >= 2) {
      const auto &px = numeric_grids_[1], &py = numeric_grids_[0];
      o << "<h2>Over " << svg::escape(py["name"].get<std::string>()) << " and " << svg::escape(px["name"].get<std::string>())
        << "</h2>\n<p>Mean per cell.</p>\n";
      for (const auto& m : metrics)
        for (const auto& f : formulations_) o << heat(px, py, m, f);
    }
    if (random_ || !word_grids_.empty()) {
      o << "<h2>Distributions</h2>\n";
      for (const auto& m : metrics) o << hist(m);
    }
    return o.str();
  }

  std::string reference(const PushOutcome& real, const std::string& body) {
    const std::string b = "final_bodies." + body;
    std::vector<svg::Series> xy, yaw;
    for (const auto& f : formulations_) {
      svg::Series s{f, {}, {}, {}, {}}, h{f, {}, {}, {}, {}};
      for (const Job& j : jobs_)
        if (j.formulation == f && j.values.count(b + ".pos.0")) {
          s.x.push_back(j.values.at(b + ".pos.0"));
          s.y.push_back(j.values.at(b + ".pos.1"));
          if (j.values.count(b + ".yaw_deg")) h.x.push_back(j.values.at(b + ".yaw_deg"));
        }
      xy.push_back(s), yaw.push_back(h);
    }
    std::ostringstream table;
    table << "<table><tr><th></th><th>x (mm)</th><th>y (mm)</th><th>yaw (deg)</th></tr>\n<tr><td>real push</td><td>"
          << 1e3 * real.x << "</td><td>" << 1e3 * real.y << "</td><td>" << real.yaw_deg << "</td></tr>\n";
    for (std::size_t k = 0; k < xy.size(); ++k)
      table << "<tr><td>" << svg::escape(xy[k].label) << " (mean ± std of " << xy[k].x.size() << ")</td><td>" << spread(xy[k].x, 1e3)
            << "</td><td>" << spread(xy[k].y, 1e3) << "</td><td>" << spread(yaw[k].x, 1) << "</td></tr>\n";
    table << "</table>\n";
    return "<h2>Final pose against the real push</h2>\n<p>The simulated " + svg::escape(body) +
           "'s final position and yaw, and the recorded push's (x along the pushed side's inward normal, origin at the start).</p>\n" +
           table.str() +
           svg::scatter("final position of " + body, "x (m)", "y (m)", xy, {{"real push", real.x, real.y}}) +
           svg::histogram("final yaw of " + body, "yaw (deg)", yaw, {{"real push", real.yaw_deg, 0}});
  }

 private:
  std::vector<double> values(const std::string& f, const std::string& m, const std::string& p, const nlohmann::json& v) const {
    std::vector<double> out;
    for (const Job& j : jobs_)
      if (j.formulation == f && (p.empty() || j.parameters[p] == v))
        if (auto it = j.values.find(m); it != j.values.end() && std::isfinite(it->second)) out.push_back(it->second);
    return out;
  }

  std::string line(const nlohmann::json& p, const std::string& m) const {
    const std::string name = p["name"];
    std::vector<svg::Series> series;
    for (const auto& f : formulations_) {
      svg::Series s{f, {}, {}, {}, {}};
      for (const auto& v : p["values"]) {
        const std::vector<double> ys = values(f, m, name, v);
        if (ys.empty()) continue;
        s.x.push_back(v.get<double>());
        s.y.push_back(mean(ys));
        s.lo.push_back(*std::min_element(ys.begin(), ys.end()));
        s.hi.push_back(*std::max_element(ys.begin(), ys.end()));
      }
      series.push_back(s);
    }
    return svg::line_chart(m + " over " + name, name, m, series, p.value("kind", "") == "logspace");
  }

  std::string heat(const nlohmann::json& px, const nlohmann::json& py, const std::string& m, const std::string& f) const {
    std::vector<double> xs, ys;
    for (const auto& v : px["values"]) xs.push_back(v);
    for (const auto& v : py["values"]) ys.push_back(v);
    std::vector<std::vector<double>> cells(ys.size(), std::vector<double>(xs.size(), NAN));
    for (std::size_t r = 0; r < ys.size(); ++r)
      for (std::size_t c = 0; c < xs.size(); ++c) {
        std::vector<double> v;
        for (const Job& j : jobs_)
          if (j.formulation == f && j.parameters[px["name"].get<std::string>()] == px["values"][c] &&
              j.parameters[py["name"].get<std::string>()] == py["values"][r])
            if (auto it = j.values.find(m); it != j.values.end() && std::isfinite(it->second)) v.push_back(it->second);
        cells[r][c] = mean(v);
      }
    const std::string title = m + (formulations_.size() > 1 ? " (" + f + ")" : "");
    return svg::heat_map(title, px["name"], py["name"], xs, ys, cells);
  }

  std::string hist(const std::string& m) const {
    std::vector<svg::Series> series;
    for (const auto& f : formulations_) series.push_back({f, values(f, m, "", nullptr), {}, {}, {}});
    return svg::histogram(m, m, series, {});
  }

  std::vector<Job> jobs_;
  std::vector<std::string> formulations_;
  std::vector<nlohmann::json> numeric_grids_, word_grids_;
  bool random_ = false;
};

}  // namespace

PushOutcome mcube_push_outcome(const std::string& path) {
  const mcube::PushFile f = mcube::read_push_file(path);
  const mcube::Trajectory t = mcube::object_motion(f);
  if (t.t.empty()) throw InputError(path + ": no object poses");
  // The pushed side's outline comes from the objects folder beside the recordings, if any.
  mcube::PushGeometry g;
  const mcube::ObjectInfo& info = mcube::object_info(f.shape);
  fs::path objects;
  for (fs::path p = fs::absolute(path).parent_path(); !p.empty() && p != p.parent_path(); p = p.parent_path())
    if (fs::exists(p / "objects" / info.outline)) {
      objects = p / "objects";
      break;
    }
  g = objects.empty() ? mcube::push_geometry(f) : mcube::push_geometry(f, mcube::object_outline(info, objects.string()));
  const double c = -g.normal.x(), s = -g.normal.y();  // the inward normal becomes +x
  const double x = t.x.back(), y = t.y.back();
  return {c * x + s * y, -s * x + c * y, t.yaw.back() * 180 / std::numbers::pi};
}

fs::path write_sweep_report(const fs::path& dir, const fs::path& out_path) {
  const nlohmann::json desc = read_json(dir / "sweep.json");
  if (!desc.contains("formulations") || !desc.contains("parameters"))
    throw InputError((dir / "sweep.json").string() + ": not a sweep description");
  std::ifstream in(dir / "results.jsonl");
  if (!in) throw InputError((dir / "results.jsonl").string() + ": not found");
  std::vector<Job> jobs;
  std::vector<std::string> order;
  std::vector<std::pair<long, std::string>> errors;
  long failed = 0, lines = 0;
  for (std::string text; std::getline(in, text);) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.contains("job")) continue;  // (a line cut by a kill)
    ++lines;
    if (j.value("status", "") != "ok") {
      ++failed;
      if (errors.size() < kMaxErrors) errors.emplace_back(j["job"].get<long>(), j.value("error", ""));
      continue;
    }
    Job job{j.value("formulation", ""), j.value("parameters", nlohmann::json::object()), {}};
    flatten(j.value("metrics", nlohmann::json::object()), "", job.values, order);
    jobs.push_back(std::move(job));
  }
  {  // each name once, in the order the sweep file lists the metrics
    std::vector<std::string> listed;
    for (const auto& m : desc.value("metrics", nlohmann::json::array())) listed.push_back(m);
    const auto rank = [&](const std::string& name) {
      for (std::size_t i = 0; i < listed.size(); ++i)
        if (name == listed[i] || name.rfind(listed[i] + ".", 0) == 0) return i;
      return listed.size();
    };
    std::set<std::string> seen;
    std::vector<std::string> unique;
    for (const auto& m : order)
      if (seen.insert(m).second) unique.push_back(m);
    std::stable_sort(unique.begin(), unique.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    order = unique;
  }
  // Chart the metrics that vary; a constant one is a line in the table.
  std::vector<std::string> varying, constant;
  for (const auto& m : order) {
    std::set<double> seen;
    for (const Job& j : jobs)
      if (auto it = j.values.find(m); it != j.values.end() && std::isfinite(it->second)) seen.insert(it->second);
    (seen.size() >= 2 ? varying : constant).push_back(m);
  }
  if (varying.size() > kMaxMetrics) varying.resize(kMaxMetrics);

  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>graspsim sweep: " << svg::escape(desc.value("file", ""))
       << "</title>\n<style>body{font-family:sans-serif;max-width:1000px;margin:auto}svg{margin:4px}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}</style></head><body>\n"
       << "<h1>Sweep " << svg::escape(fs::path(desc.value("file", "")).filename().string()) << "</h1>\n<p>Scene "
       << svg::escape(desc.value("scene", "")) << "; " << lines << " of " << desc.value("jobs", 0L) << " jobs done, " << failed
       << " failed.</p>\n<table><tr><th>parameter</th><th>kind</th><th>values</th></tr>\n";
  for (const auto& p : desc["parameters"])
    html << "<tr><td>" << svg::escape(p["name"]) << "</td><td>" << svg::escape(p["kind"]) << "</td><td>"
         << svg::escape(p.contains("values") ? p["values"].dump() : p.value("range", nlohmann::json()).dump()) << "</td></tr>\n";
  html << "</table>\n";
  if (!constant.empty()) {
    html << "<p>The same in every job:";
    for (std::size_t i = 0; i < constant.size() && i < 20; ++i)
      html << (i ? ", " : " ") << svg::escape(constant[i]) << " = " << jobs.front().values.at(constant[i]);
    html << (constant.size() > 20 ? ", …" : "") << "</p>\n";
  }
  Report report(desc, jobs);
  html << report.body(varying);
  if (desc.contains("reference") && desc["reference"].is_object())
    html << report.reference(mcube_push_outcome(desc["reference"]["mcube"]), desc["reference"]["body"]);
  if (!errors.empty()) {
    html << "<h2>Failed jobs</h2>\n<table><tr><th>job</th><th>error</th></tr>\n";
    for (const auto& [job, error] : errors) html << "<tr><td>" << job << "</td><td>" << svg::escape(error) << "</td></tr>\n";
    html << "</table>\n";
  }
  html << "</body></html>\n";
  const fs::path out = out_path.empty() ? dir / "report.html" : out_path;
  write_atomically(out, html.str());
  return out;
}

}  // namespace graspsim
