#pragma once
// Checkpoints: a State written to a file and read back bit for bit (`state.bin`, written at
// the end of every recorded run; `graspsim run --from-state FILE` continues from one).
//
// The file is binary, every number little-endian (integers as fixed-width two's complement,
// doubles as their IEEE 754 bits), whatever machine writes or reads it:
//
//   magic        16 bytes  "graspsim state\n" and a NUL
//   version      u32       kStateFileVersion
//   size         u64       bytes from after this field to the checksum (excluded)
//   fingerprint            of the model the state belongs to:
//     nq nv nact nbody njoint ngeom    u32 each
//     hash       u64       FNV-1a 64 over the names and types of bodies, joints, geoms and
//                          actuators and the structure (parents, joint addresses, geom bodies)
//     names                per body: name; per joint: name, type (u8); per geom: name, type
//                          (u8); per actuator: name (a string is u32 length + bytes)
//   t            f64
//   step         u64
//   q, v, act              each u32 length + f64s
//   step_size    f64       (version 2 on) the adaptive integrator's next step size; version 1
//                          files read as 0
//   constraint_forces      (version 4 on) u32 length + f64s: 0 (none) or the model's
//                          constraint_slots size; version 3 and older files read as none
//   contacts               u32 values per slot (ContactSlot::kValues), u64 slots; per slot:
//                          geom_a i32, geom_b i32, feature u64, since f64, values f64 × kValues;
//                          then one live flag (u8, 0 or 1) per slot. Every slot, free ones
//                          too, so the table's layout (which slot a new contact takes) restarts
//                          exactly.
//   rng                    std::mt19937_64's operator<< text (u64 length + bytes): the
//                          standard's portable form of the engine's state
//   checksum     u64       FNV-1a 64 over every byte before it
//
// What is not saved: the Workspace (kinematics, the steppers' scratch, factors, warm-start
// storage). A continued run starts with a fresh Workspace; everything a step reads from one
// step to the next lives in State (docs/architecture.md), so a run continued from a
// checkpoint ends in the same bits as the run that never stopped.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/state.h"

namespace graspsim {

inline constexpr std::uint32_t kStateFileVersion = 4;  // 2 added step_size, 3 sleep_time, 4 constraint_forces

// What a state file says of its model (the fingerprint above).
struct StateFingerprint {
  std::uint32_t nq = 0, nv = 0, nact = 0, nbody = 0, njoint = 0, ngeom = 0;
  std::uint64_t hash = 0;
  std::vector<std::string> bodies, joints, geoms, actuators;
  std::vector<std::uint8_t> joint_types, geom_types;
};

// A state file read without its model, to be bound to one later (Python's
// graspsim.State.load(path)): every check that needs no model is done.
struct SavedState {
  std::string file;
  State state;
  StateFingerprint fingerprint;
};

// Writes `state` of `model` to `path` atomically: a temporary file next to it, flushed to
// disk, then renamed over `path`. Throws InputError naming the file if it cannot be written.
void save_state(const std::filesystem::path& path, const Model& model, const State& state);

// Reads a state of `model` from `path`. Throws InputError naming the file when it is
// missing or unreadable, not a graspsim state file, of another format version, truncated,
// corrupt (checksum), of another model (the message names the size or name that differs),
// or holds non-finite numbers or out-of-range contact keys.
State load_state(const std::filesystem::path& path, const Model& model);

// load_state in two halves: read_state checks the file alone (the errors above that do not
// name the model); bind_state checks that it is a state of `model` and returns it.
SavedState read_state(const std::filesystem::path& path);
State bind_state(SavedState saved, const Model& model);

}  // namespace graspsim
