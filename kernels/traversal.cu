// traversal.cu -- the kernels every technique's launch sequence shares: traversal_init (start a
// traversal from the source slot: the frontier queue of Busato & Bombieri, "Graph Algorithms on
// GPUs", section 1, holding the source) and traversal_tick (count the launch rounds a traversal
// needs) and traversal_state_out (the state read-back into pinned host memory), all defined in
// traversal.cuh. The engine takes them from this file so that a run
// compiles them once whatever its technique, and no technique file is compiled only for them.
#include "traversal.cuh"
