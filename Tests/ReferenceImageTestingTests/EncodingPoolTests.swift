import Dispatch
import Foundation
import XCTest

@testable import ReferenceImageTesting

final class EncodingPoolTests: XCTestCase {
  /// Submits many slow jobs from several threads and checks, at every moment a submit returns,
  /// that no more than `capacity` accepted jobs are unfinished. Without back-pressure the
  /// submitters race ahead of the 2 ms jobs and the count climbs to hundreds.
  func testSubmit_manySlowJobs_pendingNeverExceedsCapacity() {
    let capacity = 3
    let pool = EncodingPool(capacity: capacity)
    let submitted = LockedCounter()
    let finished = LockedCounter()
    let running = LockedCounter()
    let pending = LockedCounter()
    let largestPending = LockedList<Int>()
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<40 {
        pool.submit {
          running.add(1)
          usleep(2_000)
          running.add(-1)
          pending.add(-1)
          finished.add(1)
        }
        // Counted after submit returns, so this can only under-count the jobs in flight; a
        // job that already finished has taken its count away first, which may dip below zero.
        let now = pending.add(1)
        largestPending.append(now)
        submitted.add(1)
      }
    }
    pool.drain()
    XCTAssertEqual(submitted.current, 160)
    XCTAssertEqual(finished.current, 160, "drain returned before every job finished")
    XCTAssertLessThanOrEqual(largestPending.all.max() ?? 0, capacity)
    XCTAssertLessThanOrEqual(running.largest, capacity)
    XCTAssertEqual(running.current, 0)
  }

  /// A job blocks until released; with a capacity of one, a second submit cannot return before
  /// the first job finishes. Checked by order of events, not by time.
  func testSubmit_fullPool_blocksUntilAJobFinishes() {
    let pool = EncodingPool(capacity: 1)
    let events = LockedList<String>()
    let release = DispatchSemaphore(value: 0)
    let secondSubmitted = DispatchSemaphore(value: 0)
    pool.submit {
      release.wait()
      events.append("first job finished")
    }
    let secondCalling = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      secondCalling.signal()
      pool.submit { events.append("second job ran") }
      events.append("second submit returned")
      secondSubmitted.signal()
    }
    secondCalling.wait()
    // Not an assertion on time: a pool without back-pressure returns from the second submit
    // within this pause, which makes the order check below fail; a correct pool passes however
    // long the pause is.
    usleep(50_000)
    events.append("releasing")
    release.signal()
    secondSubmitted.wait()
    pool.drain()
    let order = events.all
    let released = order.firstIndex(of: "releasing")!
    let firstFinished = order.firstIndex(of: "first job finished")!
    let returned = order.firstIndex(of: "second submit returned")!
    XCTAssertLessThan(released, firstFinished)
    XCTAssertLessThan(firstFinished, returned, "\(order)")
    XCTAssertTrue(order.contains("second job ran"))
  }
}
