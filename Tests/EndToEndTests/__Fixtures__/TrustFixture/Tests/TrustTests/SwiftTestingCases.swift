import ReferenceImageTesting
import Testing

@Test func stDrawn() { assertImage(square(50), named: "st-drawn") }

@Test(.disabled("not here")) func stOff() { assertImage(square(60), named: "st-off") }

@Test(.enabled(if: false)) func stConditional() { assertImage(square(61), named: "st-cond") }

@Suite(.disabled()) struct OffSuite {
  @Test func inside() { assertImage(square(62), named: "inside") }
}

/// 500 deterministic renders: repeated runs must agree on every one.
@Test(arguments: 0..<500) func steady(n: Int) {
  assertImage(square(UInt8(n % 256)), named: "steady/\(n)")
}
