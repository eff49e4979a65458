import ArgumentParser
import CQLKit

/// `--optimize` (the default) / `--no-optimize`: whether the backends get the
/// optimizer's rewrite of the query (Sources/CQLKit/Optimizer) or the query as read.
struct OptimizeOption: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Rewrite the query with the optimizer's rules before the backend (default: on).")
    var optimize = true

    /// The query the backend gets; an optimizer error points into `source`.
    func apply(_ query: Query, source: String) throws(CommandFailure) -> Query {
        guard optimize else { return query }
        do {
            return try Optimizer.optimize(query)
        } catch {
            throw CommandFailure(error.withSource(source))
        }
    }
}
