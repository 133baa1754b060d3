// Test helpers shared by the model client wrappers' tests: a request by id, and every
// request run through a client with the failure reported to GoogleTest.
#ifndef STRUCTTEST_TESTING_FAKE_CLIENT_TEST_UTIL_H_
#define STRUCTTEST_TESTING_FAKE_CLIENT_TEST_UTIL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "testing/fake_client.h"

namespace structtest {

inline ModelRequest Req(uint64_t id) { return FakeRequest(id); }

// DrainClient's results; an empty list, and a test failure, when it fails.
inline std::vector<ModelResult> Drain(ModelClient* client,
                                      const std::vector<ModelRequest>& requests) {
  auto done = DrainClient(client, requests);
  EXPECT_TRUE(done.ok()) << done.status().message();
  return done.ok() ? std::move(done).value() : std::vector<ModelResult>();
}

// Requests 0..n-1 (FakeRequests).
inline std::vector<ModelResult> Drain(ModelClient* client, int n) {
  return Drain(client, FakeRequests(n));
}

}  // namespace structtest

#endif  // STRUCTTEST_TESTING_FAKE_CLIENT_TEST_UTIL_H_
