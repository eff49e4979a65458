#if canImport(CMalloc)
import CMalloc
#endif

extension CQLServer {
    /// Makes this process give large freed allocations straight back to
    /// the system (Server.md, "Memory a request takes"); `cql serve` calls
    /// it once at start, before any thread allocates.
    ///
    /// glibc serves an allocation of 128 KiB or more with its own `mmap`,
    /// returned when freed, until the first such free: then it raises that
    /// threshold (up to 32 MiB) and serves later ones from its heaps, which
    /// keep freed pages. A burst of large bodies then leaves tens of
    /// megabytes resident that `malloc_trim` may miss (a buffer another
    /// thread frees after the trim). A fixed threshold of 1 MiB keeps every
    /// body buffer and parsed array of that size mapped on its own, so it
    /// goes back the moment it is freed; smaller allocations are unchanged.
    ///
    /// ```swift
    /// CQLServer.returnLargeAllocationsToTheSystem()   // Linux (glibc); elsewhere nothing
    /// ```
    public static func returnLargeAllocationsToTheSystem() {
        #if canImport(CMalloc)
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        #endif
    }
}
