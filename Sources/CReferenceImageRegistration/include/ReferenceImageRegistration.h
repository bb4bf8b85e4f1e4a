#ifndef REFERENCE_IMAGE_REGISTRATION_H
#define REFERENCE_IMAGE_REGISTRATION_H
// Nothing to call: this target exists for the load-time constructor in Registration.c.
#endif
