// Test support: finds processes a sandboxed job may have left behind. Reads /proc of
// the calling process's PID namespace, which also shows the pool's nested namespaces.
#ifndef STRUCTTEST_TESTING_PROCESS_SCAN_H_
#define STRUCTTEST_TESTING_PROCESS_SCAN_H_

#include <string>
#include <vector>

namespace structtest::testing {

struct ProcessEntry {
  int pid = 0;
  int ppid = 0;
  int uid = -1;
  std::string pid_ns;  // readlink of /proc/PID/ns/pid ("" when unreadable)
  std::string name;    // the Name: line of /proc/PID/status
};

std::vector<ProcessEntry> ListProcesses();

// Every process that belongs to a worker (by its process id, as PythonPool reports it)
// other than the worker itself: its descendants, and anything else living in a PID
// namespace that one of its descendants created. Empty after a clean job.
std::vector<ProcessEntry> JobProcesses(const std::vector<int>& worker_pids);

// "pid 123 (python3, uid 65534)" lines for a failure message.
std::string Describe(const std::vector<ProcessEntry>& processes);

}  // namespace structtest::testing

#endif  // STRUCTTEST_TESTING_PROCESS_SCAN_H_
