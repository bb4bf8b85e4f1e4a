import ReferenceImageTesting
import Testing

@Test func free() { assertImage(square(50), named: "free") }

@Test(arguments: [1, 2, 3])
func paramScene(n: Int) { assertImage(square(UInt8(60 + n)), named: "param-\(n)") }

@Suite struct Outer {
  @Suite struct Inner {
    @Test func deep() { #expect(1 + 1 == 2) }
  }

  @Test func shallow() { assertImage(square(70), named: "shallow") }
}
