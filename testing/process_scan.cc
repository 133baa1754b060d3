#include "testing/process_scan.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace structtest::testing {

namespace fs = std::filesystem;

std::vector<ProcessEntry> ListProcesses() {
  std::vector<ProcessEntry> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    ProcessEntry p;
    p.pid = std::stoi(name);
    std::ifstream status(e.path() / "status");
    std::string line;
    bool any = false;
    while (std::getline(status, line)) {
      any = true;
      std::istringstream in(line);
      std::string key;
      in >> key;
      if (key == "Name:") {
        in >> p.name;
      } else if (key == "PPid:") {
        in >> p.ppid;
      } else if (key == "Uid:") {
        in >> p.uid;
      }
    }
    if (!any) continue;  // exited meanwhile
    p.pid_ns = fs::read_symlink(e.path() / "ns" / "pid", ec).string();
    if (ec) p.pid_ns.clear();
    out.push_back(p);
  }
  return out;
}

std::vector<ProcessEntry> JobProcesses(const std::vector<int>& worker_pids) {
  const std::vector<ProcessEntry> all = ListProcesses();
  std::map<int, const ProcessEntry*> by_pid;
  for (const auto& p : all) by_pid[p.pid] = &p;
  const std::string own_ns = fs::read_symlink("/proc/self/ns/pid").string();
  std::set<int> roots(worker_pids.begin(), worker_pids.end());
  // Descendants of the workers, and the PID namespaces they created.
  std::set<int> members;
  std::set<std::string> namespaces;
  for (const auto& p : all) {
    for (int q = p.ppid, hops = 0; q > 0 && hops < 64; ++hops) {
      if (roots.count(q)) {
        members.insert(p.pid);
        if (!p.pid_ns.empty() && p.pid_ns != own_ns) namespaces.insert(p.pid_ns);
        break;
      }
      auto it = by_pid.find(q);
      if (it == by_pid.end()) break;
      q = it->second->ppid;
    }
  }
  std::vector<ProcessEntry> out;
  for (const auto& p : all) {
    if (roots.count(p.pid)) continue;
    const bool in_ns = namespaces.count(p.pid_ns) > 0;
    if (!members.count(p.pid) && !in_ns) continue;
    // The worker proper: the only child of a worker process (process 1 of the
    // namespace the worker made; jobs are its children).
    if (roots.count(p.ppid)) {
      int siblings = 0;
      for (const auto& other : all) siblings += other.ppid == p.ppid;
      if (siblings == 1) continue;
    }
    out.push_back(p);
  }
  return out;
}

std::string Describe(const std::vector<ProcessEntry>& processes) {
  std::string s;
  for (const auto& p : processes) {
    s += "pid " + std::to_string(p.pid) + " (" + p.name + ", uid " + std::to_string(p.uid) +
         ", parent " + std::to_string(p.ppid) + ")\n";
  }
  return s;
}

}  // namespace structtest::testing
