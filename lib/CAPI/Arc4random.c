/* arc4random for the wheel's library. Debian 12's LLVM calls glibc's, which
 * is new in glibc 2.36; this one, over getrandom (glibc 2.25), keeps the
 * library loadable down to glibc 2.34 (Ubuntu 22.04, RHEL 9), the floor that
 * the other symbols set. */
#include <errno.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>

uint32_t arc4random(void) {
  uint32_t value;
  ssize_t got;
  do
    got = getrandom(&value, sizeof(value), 0);
  while (got < 0 && errno == EINTR);
  if (got == (ssize_t)sizeof(value))
    return value;
  /* No getrandom (a kernel before 3.17): LLVM only seeds names with it. */
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint32_t)(now.tv_nsec ^ (now.tv_sec << 20) ^ (uintptr_t)&value);
}
