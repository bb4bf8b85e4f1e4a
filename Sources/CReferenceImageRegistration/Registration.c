#include "ReferenceImageRegistration.h"

// Defined in Swift by ReferenceImageTesting with @_cdecl. Weak, so this file links even when
// the Swift side is absent (the constructor then does nothing).
extern void ReferenceImagesRegisterCoordinator(void) __attribute__((weak));

// Runs when the test binary is loaded, before XCTest or Swift Testing start any test: the
// Linux counterpart of Objective-C's +load. It registers the coordinator as an XCTest observer
// so that no user code is needed.
__attribute__((constructor)) static void ReferenceImagesRegisterAtLoad(void) {
  if (ReferenceImagesRegisterCoordinator) {
    ReferenceImagesRegisterCoordinator();
  }
}
