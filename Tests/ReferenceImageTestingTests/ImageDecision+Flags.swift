@testable import ReferenceImageTesting

extension ImageDecision {
  /// The decision spelled as the flags the decision table in `ImageDecisionTests` is written
  /// in: whether the render is stored, the reference recorded as unchanged, and the failure.
  init(storesImage: Bool, failure: Failure?, unchangedReference: UnchangedReference? = nil) {
    switch (storesImage, failure, unchangedReference) {
    case (false, nil, nil): self = .pass
    case (true, nil, nil): self = .store
    case (false, nil, let reference?): self = .recordUnchanged(reference)
    case (let stores, let failure?, nil): self = .fail(failure, keepsRender: stores)
    default: preconditionFailure("an unchanged reference is neither stored nor failed")
    }
  }
}
