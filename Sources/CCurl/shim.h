#ifndef REFERENCE_IMAGES_CCURL_SHIM_H
#define REFERENCE_IMAGES_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper per kind of value.
typedef size_t (*ri_curl_data_callback)(char *, size_t, size_t, void *);

static inline CURLcode ri_curl_set_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ri_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ri_curl_set_text(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ri_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ri_curl_set_callback(
    CURL *handle, CURLoption option, ri_curl_data_callback value) {
  return curl_easy_setopt(handle, option, value);
}
typedef int (*ri_curl_progress_callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode ri_curl_set_progress(CURL *handle, ri_curl_progress_callback value) {
  return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}
static inline long ri_curl_response_code(CURL *handle) {
  long code = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
  return code;
}
#endif
