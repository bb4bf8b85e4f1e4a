// The core types a render test names (`RGBAImage`, `RGBAColor`, `ImageComparison`,
// `DifferenceBound`, `PNGDecoder`, …) come with `import ReferenceImageTesting`, so a test file
// needs one import.
@_exported import ReferenceImageCore
