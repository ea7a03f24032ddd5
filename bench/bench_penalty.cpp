// The nine penalty grasps of scenes/penalty/ (issue 13): wall time per simulated second with
// the penalty stepper (formulation C: adaptive RK45, volumetric contact) and with SPOOK
// (formulation A, Split and Direct) on the same scene, measured in the same run. Each case
// runs the grasp's first `kSeconds` (the fingers close, touch and settle: the expensive part
// for the penalty stepper, whose first-contact gain stiffens the contact for ~50 ms) and
// then `kSeconds` more from that state, which is the steady hold. Counters:
//   wall_per_sim_s        wall seconds per simulated second over the steady part (< 1: faster
//                         than real time)
//   closing_wall_per_sim_s  the same over the closing part
//   rk45_steps, overlap_us  the penalty stepper's work (0 for SPOOK)
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "io/run.h"
#include "io/scene.h"

namespace graspsim {
namespace {

constexpr double kSeconds = 1.0;

void run_grasp(benchmark::State& st, const std::string& name, const std::string& stepper, const std::string& solver) {
  std::vector<std::string> set = {"duration=" + std::to_string(kSeconds), "parameters.stepper=" + stepper};
  if (stepper == "spook") {
    set.push_back("parameters.spook_solver=" + solver);
    if (solver == "direct") set.push_back("parameters.friction_model=box");  // the direct solver's friction
  }
  const Scene scene = load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/penalty/" + name + ".yaml", set);
  RunOptions o;
  o.record = false;
  double closing = 0.0, steady = 0.0, steps = 0.0, overlap_us = 0.0;
  for (auto _ : st) {
    const RunSummary first = run_scene(scene, o);
    RunOptions cont = o;
    cont.initial_state = first.final_state;
    const RunSummary second = run_scene(scene, cont);
    closing = first.wall_time_s / kSeconds;
    steady = second.wall_time_s / kSeconds;
    if (second.json.contains("rk45_accepted_steps")) {
      steps = second.json["rk45_accepted_steps"].get<double>();
      overlap_us = second.json["overlap_us_mean"].get<double>();
    }
    if (!second.json.value("object_held", false)) st.SkipWithError("the object left the grasp");
  }
  st.counters["wall_per_sim_s"] = steady;
  st.counters["closing_wall_per_sim_s"] = closing;
  st.counters["rk45_steps"] = steps;
  st.counters["overlap_us"] = overlap_us;
}

void register_all() {
  for (const char* gripper : {"prismatic2", "revolute2", "revolute3"})
    for (const char* object : {"cube", "sphere", "bunny"}) {
      const std::string name = std::string(gripper) + "_" + object;
      for (const auto& [stepper, solver] : {std::pair{"penalty", ""}, {"spook", "split"}, {"spook", "direct"}}) {
        const std::string label = name + "/" + stepper + (solver[0] ? std::string("_") + solver : "");
        benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State& st) { run_grasp(st, name, stepper, solver); })
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
      }
    }
}

}  // namespace
}  // namespace graspsim

int main(int argc, char** argv) {
  graspsim::register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
