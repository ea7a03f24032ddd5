#include "view_command.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/atomic_file.h"

namespace fs = std::filesystem;
namespace gs = graspsim;

namespace {

// What the viewer reads of a run directory (docs/recordings.md); the first two are required.
const char* const kRunFiles[] = {"geometry.json", "bodies.csv", "contacts.csv", "run.json", "trajectory.csv"};
const char* const kViewerFiles[] = {"index.html", "viewer.js"};

std::string read_file(const fs::path& path) { return gs::read_whole_file(path); }

void write_file(const fs::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
  if (!out.flush()) throw gs::InputError(path.string() + ": cannot write");
}

// The run directories, checked: each must hold what the viewer needs.
std::vector<fs::path> run_dirs(const ViewArgs& args) {
  if (args.runs.empty() || args.runs.size() > 2)
    throw gs::InputError("view: give one run directory, or two to play side by side");
  std::vector<fs::path> dirs;
  for (const std::string& r : args.runs) {
    std::error_code ec;
    if (!fs::is_directory(r, ec)) throw gs::InputError(r + ": not a run directory (graspsim run --out DIR writes one)");
    for (const char* need : {"geometry.json", "bodies.csv"})
      if (!fs::is_regular_file(fs::path(r) / need, ec))
        throw gs::InputError(r + ": no " + need + " (runs recorded by graspsim run, validate or sweep write it; "
                                 "rerun this one with the current graspsim)");
    dirs.emplace_back(r);
  }
  return dirs;
}

fs::path web_dir(const ViewArgs& args) {
  fs::path dir = args.web_dir;
  if (dir.empty()) {
    const char* env = std::getenv("GRASPSIM_WEB_DIR");
    dir = env && *env ? fs::path(env) : fs::path(GRASPSIM_WEB_DIR);
  }
  std::error_code ec;
  for (const char* f : kViewerFiles)
    if (!fs::is_regular_file(dir / f, ec))
      throw gs::InputError(dir.string() + ": the viewer is not built there (no " + f +
                           "); `make build` builds it (needs npm), or name it with --web DIR");
  return dir;
}

// The runs as the viewer's data.js declares them: names, and either where to fetch each file
// (served) or its contents (exported: a page opened from disk may not fetch files).
std::string data_js(const std::vector<fs::path>& dirs, bool embed) {
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    nlohmann::json run = {{"name", fs::absolute(dirs[i]).lexically_normal().filename().string()},
                          {"path", dirs[i].string()}};
    if (run["name"] == "") run["name"] = dirs[i].string();
    nlohmann::json files = nlohmann::json::object();
    for (const char* f : kRunFiles) {
      std::error_code ec;
      if (!fs::is_regular_file(dirs[i] / f, ec)) continue;
      files[f] = embed ? nlohmann::json(read_file(dirs[i] / f)) : nlohmann::json("run/" + std::to_string(i) + "/" + f);
    }
    run[embed ? "files" : "urls"] = std::move(files);
    runs.push_back(std::move(run));
  }
  // (strict JSON escapes every control character, and "</" cannot end a script here: it is a file)
  return "window.GRASPSIM_RUNS = " + runs.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ";\n";
}

int export_static(const std::vector<fs::path>& dirs, const fs::path& web, const fs::path& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw gs::InputError(out.string() + ": cannot create: " + ec.message());
  for (const char* f : kViewerFiles) write_file(out / f, read_file(web / f));
  write_file(out / "data.js", data_js(dirs, true));
  std::printf("graspsim view: wrote %s (open index.html in a browser; no server needed)\n",
              (out / "index.html").string().c_str());
  return 0;
}

const char* content_type(const std::string& name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".json")) return "application/json";
  return "text/plain; charset=utf-8";
}

int serve(const std::vector<fs::path>& dirs, const fs::path& web, const ViewArgs& args,
          const std::function<bool()>& stop) {
  httplib::Server server;
  const std::string data = data_js(dirs, false);
  for (const auto& [route, file] : {std::pair{"/", "index.html"}, {"/index.html", "index.html"}, {"/viewer.js", "viewer.js"}})
    server.Get(route, [path = web / file](const httplib::Request&, httplib::Response& res) {
      res.set_content(read_file(path), content_type(path.string()));
    });
  server.Get("/data.js", [data](const httplib::Request&, httplib::Response& res) {
    res.set_content(data, content_type(".js"));
  });
  // Only the recordings the viewer reads, of the runs named on the command line.
  server.Get(R"(/run/(\d)/([a-z_]+\.(csv|json)))", [dirs](const httplib::Request& req, httplib::Response& res) {
    const std::size_t i = std::stoul(req.matches[1]);
    const std::string name = req.matches[2];
    bool known = false;
    for (const char* f : kRunFiles) known = known || name == f;
    std::error_code ec;
    if (i >= dirs.size() || !known || !fs::is_regular_file(dirs[i] / name, ec)) {
      res.status = 404;
      return;
    }
    res.set_content(read_file(dirs[i] / name), content_type(name));
  });

  int port = args.port;
  if (port == 0) {
    port = server.bind_to_any_port(args.host);
  } else if (!server.bind_to_port(args.host, port)) {
    port = -1;
  }
  if (port < 0)
    throw gs::InputError("view: cannot listen on " + args.host + ":" + std::to_string(args.port) +
                         " (in use? choose another with --port, or --port 0 for any free one)");
  std::printf("graspsim view: http://%s:%d/ (Ctrl-C to stop)\n", args.host.c_str(), port);
  std::fflush(stdout);
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done && !(stop && stop())) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    server.stop();
  });
  server.listen_after_bind();
  done = true;
  watcher.join();
  return 0;
}

}  // namespace

void add_view_command(CLI::App& app, ViewArgs& args) {
  CLI::App* view = app.add_subcommand("view", "Replay recorded runs in the browser viewer (one, or two side by side)");
  view->add_option("runs", args.runs, "Run directories (graspsim run --out, validate mcube's per-file folders)")
      ->required()->expected(1, 2);
  view->add_option("--port", args.port, "Port on localhost (0: any free one)")->capture_default_str()
      ->check(CLI::Range(0, 65535));
  view->add_option("--host", args.host, "Address to listen on")->capture_default_str();
  view->add_option("--export", args.export_dir, "Write a self-contained static copy (HTML, script, data) here");
  view->add_option("--web", args.web_dir, "The built viewer's folder (default: the build tree's web/)");
}

int cmd_view(const ViewArgs& args, const std::function<bool()>& stop) {
  const std::vector<fs::path> dirs = run_dirs(args);
  const fs::path web = web_dir(args);
  if (!args.export_dir.empty()) return export_static(dirs, web, args.export_dir);
  return serve(dirs, web, args, stop);
}
