// The bounded queues between VTA's units, with the registered hand-off of the timing contract:
// an entry pushed in cycle t is visible to the consumer from t+1, and a slot freed by a pop in
// cycle t is visible to the producer from t+1. Each queue has one producer and one consumer.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>

#include <systemc>

#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/isa.h"
#include "vta/sim/token_queues.h"

namespace vta::cycle {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

// Instruction queue from fetch to one unit (INSN_QUEUE_DEPTH entries).
class InsnQueue {
 public:
  struct Entry {
    uint32_t index = 0;    // position in the instruction stream
    uint64_t visible = 0;  // first cycle the consumer sees it
  };

  explicit InsnQueue(uint32_t depth) : m_depth(depth) {}

  void reset() {
    m_q.clear();
    m_last_pop = kNever;
    m_pushed.cancel();
    m_popped.cancel();
  }
  // Producer view in cycle c: a slot freed in cycle c is not visible yet.
  bool full_for_producer(uint64_t c) const {
    return m_q.size() + (m_last_pop == c ? 1 : 0) >= m_depth;
  }
  void push(uint32_t index, uint64_t c) {
    m_q.push_back(Entry{index, c + 1});
    m_pushed.notify(cycle_time());
  }
  bool empty() const { return m_q.empty(); }
  const Entry& front() const { return m_q.front(); }
  void pop(uint64_t c) {
    m_q.pop_front();
    m_last_pop = c;
    m_popped.notify(cycle_time());
  }
  size_t size() const { return m_q.size(); }
  uint32_t depth() const { return m_depth; }
  // Cycle of the last pop (kNever since the reset).
  uint64_t last_pop() const { return m_last_pop; }
  const sc_core::sc_event& pushed() const { return m_pushed; }
  const sc_core::sc_event& popped() const { return m_popped; }

 private:
  uint32_t m_depth;
  std::deque<Entry> m_q;
  uint64_t m_last_pop = kNever;
  sc_core::sc_event m_pushed, m_popped;
};

// Dependency-token queue (l2g, g2l, s2g, g2s) of DEP_QUEUE_DEPTH tokens. Tokens carry an id
// for the trace's flow arrows.
class TokenQueue {
 public:
  struct Token {
    uint64_t visible = 0;  // first cycle the consumer can pop it
    uint64_t flow_id = 0;  // trace flow id
  };

  TokenQueue(TokenQueueId id, uint32_t depth) : m_id(id), m_depth(depth) {}

  void reset() {
    m_q.clear();
    m_last_pop = kNever;
    m_pushed.cancel();
    m_popped.cancel();
  }
  bool can_pop(uint64_t c) const { return !m_q.empty() && m_q.front().visible <= c; }
  bool full_for_producer(uint64_t c) const {
    return m_q.size() + (m_last_pop == c ? 1 : 0) >= m_depth;
  }
  void push(uint64_t c, uint64_t flow_id) {
    m_q.push_back(Token{c + 1, flow_id});
    m_pushed.notify(cycle_time());
  }
  Token pop(uint64_t c) {
    const Token t = m_q.front();
    m_q.pop_front();
    m_last_pop = c;
    m_popped.notify(cycle_time());
    return t;
  }
  bool empty() const { return m_q.empty(); }
  const Token& front() const { return m_q.front(); }
  size_t size() const { return m_q.size(); }
  TokenQueueId id() const { return m_id; }
  const char* name() const { return kTokenQueueName[m_id]; }
  // Cycle of the last pop (kNever since the reset).
  uint64_t last_pop() const { return m_last_pop; }
  const sc_core::sc_event& pushed() const { return m_pushed; }
  const sc_core::sc_event& popped() const { return m_popped; }

 private:
  TokenQueueId m_id;
  uint32_t m_depth;
  std::deque<Token> m_q;
  uint64_t m_last_pop = kNever;
  sc_core::sc_event m_pushed, m_popped;
};

}  // namespace vta::cycle
