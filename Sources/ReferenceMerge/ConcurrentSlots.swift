import Foundation

/// One result slot per iteration of `DispatchQueue.concurrentPerform`: each iteration writes
/// only its own slot, so no lock is needed, and results come back in iteration order whatever
/// the order of completion.
package final class ConcurrentSlots<Value>: @unchecked Sendable {
  private let slots: UnsafeMutableBufferPointer<Value?>

  package init(count: Int) {
    slots = .allocate(capacity: count)
    slots.initialize(repeating: nil)
  }

  deinit {
    slots.deinitialize()
    slots.deallocate()
  }

  /// Stores the value of iteration `index`; call once per index.
  package func store(_ value: Value, at index: Int) { slots[index] = value }

  /// Every value, in iteration order; call after `concurrentPerform` returns.
  package var values: [Value] { slots.map { $0! } }

  /// Runs `body` for every index on every core and returns the values in index order.
  package static func perform(_ count: Int, _ body: @Sendable (Int) -> Value) -> [Value] {
    let slots = ConcurrentSlots(count: count)
    DispatchQueue.concurrentPerform(iterations: count) { slots.store(body($0), at: $0) }
    return slots.values
  }
}
