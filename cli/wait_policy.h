#pragma once
// libgomp's default wait policy spins each idle team thread for about 300,000 iterations before
// it sleeps. That is what a quiet machine wants (the next parallel region starts without a
// wake-up), but on a machine other processes keep busy the spinning threads take the cores from
// the thread that has work, and a two-thread run collapses (measured here at load 4-9: mm 1024
// at 2 threads 40 GFLOP/s spinning, 240 passive; ResNet-18 at 2 threads 25-300 ms against
// 16-17 ms; README, Performance). libgomp reads its settings before main runs, so when neither
// OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set, a command that may run models on more than one
// thread, started while the load average exceeds the usable CPUs and another process stays
// runnable over eight looks 250 us apart, re-executes itself once with OMP_WAIT_POLICY=PASSIVE
// and JITCTL_WAIT_POLICY=busy-machine (so reports can say who set it). Setting either OpenMP variable yourself opts out;
// JITCTL_MACHINE_BUSY=1 or 0 overrides the busy test.
namespace jitctl::cli {

// Returns only when no re-execution is wanted or it failed (then the environment is as it was).
void reexec_with_default_wait_policy(int argc, char** argv);

}  // namespace jitctl::cli
