// Times spook::solve on synthetic stacks: columns of 10 boxes (free bodies, 6 dofs each)
// resting on each other and on the ground, 4 corner contacts per box (normal + 2 tangents),
// so each column is one island of 120 rows. Arguments: solver, number of boxes, warm start
// (the previous solution as lambda_warm, as for a resting stack's next step).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "spook/parameters.h"
#include "spook/problem.h"
#include "spook/problem_builder.h"

namespace graspsim::spook {
namespace {

Problem box_stacks(int boxes, FrictionTreatment friction) {
  const double h = 1.0 / 60.0, m = 1.0, half = 0.1, mu = 0.5;
  const SpookParameters sp = spook_parameters(1e6, 2 * h, h);
  const double tangent_compliance = velocity_compliance(1e-6, h);
  Problem p;
  p.nv = 6 * boxes;
  Mat6 M = Mat6::Zero();
  M.topLeftCorner<3, 3>() = m * Mat3::Identity();
  M.bottomRightCorner<3, 3>() = (m * (2 * half) * (2 * half) / 6.0) * Mat3::Identity();
  p.v_free = VecX::Zero(p.nv);
  for (int b = 0; b < boxes; ++b) {
    Tree t;
    t.v_begin = 6 * b;
    t.nv = 6;
    t.M_llt.compute(M);
    p.trees.push_back(t);
    p.v_free[6 * b + 2] = -9.81 * h;
  }
  ProblemBuilder rows(p);
  auto add_row = [&](int body, int below, const Vec3& dir, const Vec3& r_body, const Vec3& r_below,
                     RowKind kind, double c) {
    const Vec3 ang = r_body.cross(dir), ang_below = r_below.cross(dir);
    std::vector<std::pair<int, double>> entries;
    for (int k = 0; k < 3; ++k) {
      entries.emplace_back(6 * body + k, dir[k]);
      entries.emplace_back(6 * body + 3 + k, ang[k]);
      if (below >= 0) {
        entries.emplace_back(6 * below + k, -dir[k]);
        entries.emplace_back(6 * below + 3 + k, -ang_below[k]);
      }
    }
    return rows.add(entries, kind, 0.0, c, kind == RowKind::Normal ? 0.0 : -kInf, kInf);
  };
  for (int b = 0; b < boxes; ++b) {
    const int below = b % 10 == 0 ? -1 : b - 1;  // columns of 10
    for (int corner = 0; corner < 4; ++corner) {
      const Vec3 r(corner & 1 ? half : -half, corner & 2 ? half : -half, -half);
      const Vec3 r_below(r.x(), r.y(), half);
      ContactRows c;
      c.mu = mu;
      c.treatment = friction;
      c.normal = add_row(b, below, Vec3::UnitZ(), r, r_below, RowKind::Normal, sp.sigma);
      c.friction = {add_row(b, below, Vec3::UnitX(), r, r_below, RowKind::Friction, tangent_compliance),
                    add_row(b, below, Vec3::UnitY(), r, r_below, RowKind::Friction, tangent_compliance)};
      p.contacts.push_back(c);
    }
  }
  rows.finish();
  return p;
}

void BM_Solve(benchmark::State& state) {
  const auto solver = static_cast<SolverType>(state.range(0));
  const int boxes = static_cast<int>(state.range(1));
  Problem p = box_stacks(boxes, solver == SolverType::Direct ? FrictionTreatment::BoxScaled
                                                             : FrictionTreatment::Cone);
  if (state.range(2) != 0) p.lambda_warm = solve(p, solver, 16).lambda;  // a resting stack's next step
  Solution sol;
  for (auto _ : state) {
    sol = solve(p, solver, 16);
    benchmark::DoNotOptimize(sol.lambda.data());
  }
  state.SetLabel(std::string(to_string(solver)) + (state.range(2) ? " warm" : " cold"));
  state.counters["rows"] = p.nrows();
  state.counters["residual"] = sol.residual;
}

BENCHMARK(BM_Solve)
    ->ArgsProduct({{static_cast<int>(SolverType::Direct), static_cast<int>(SolverType::Iterative),
                    static_cast<int>(SolverType::Split), static_cast<int>(SolverType::DirectIterative)},
                   {100, 1000},
                   {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace graspsim::spook

BENCHMARK_MAIN();
