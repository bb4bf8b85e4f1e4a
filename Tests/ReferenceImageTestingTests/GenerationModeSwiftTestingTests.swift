import ReferenceImageTesting
import Testing

/// The environment contract, checked from Swift Testing as well: the same values users set in CI.
@Suite struct GenerationModeSwiftTestingTests {
  @Test(
    arguments: [
      (nil, GenerationMode.verify), ("0", .verify), ("never", .verify), ("1", .all),
      ("all", .all), ("ALL", .all), ("missing", .missing), (" failed ", .failed),
    ] as [(String?, GenerationMode)])
  func documentedValues(value: String?, mode: GenerationMode) {
    #expect(GenerationMode(environmentValue: value) == mode)
  }

  @Test(arguments: ["yes", "2", "record", "true"])
  func otherValuesAreConfigurationErrors(value: String) {
    #expect(GenerationMode(environmentValue: value) == .invalid(value))
    #expect(!GenerationMode(environmentValue: value).storesImages)
  }
}
