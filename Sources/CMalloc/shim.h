// glibc's malloc_trim (malloc.h is not in Swift's Glibc module): the server
// gives a burst of large bodies' freed memory back to the system.
#if defined(__linux__)
#include <malloc.h>
#endif
