import ArgumentParser
import CQLKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `cql` command: translate, format, explain and run queries.
struct CQL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cql",
        abstract: "Translate, explain and run LeanCloud CQL, Usergrid ql, REST where-JSON and NSPredicate queries, in memory or on SQLite and PostgreSQL, and apply CQL writes.",
        subcommands: [Translate.self, Eval.self, Load.self, Index.self, Run.self, Exec.self, Serve.self, Fmt.self, Explain.self, Files.self, Dump.self, Pull.self]
    )
}

/// Runs the command with the exit statuses of the contract: 0 success,
/// 1 a bad query or bad data, 2 bad usage; never a stack trace.
@main
enum Main {
    static func main() {
        // A closed output pipe is then a failed write (EPIPE) that
        // Output.outputFailed ends quietly, not a signal that kills the
        // process in the middle of a write.
        signal(SIGPIPE, SIG_IGN)
        do {
            // `cql translate` in its plain forms skips argument-parser's
            // reflection (TranslateInvocation.read says why); other forms of
            // it are read with Translate as the root; the rest by CQL.
            let arguments = CommandLine.arguments.dropFirst()
            if arguments.first == "translate", let invocation = TranslateInvocation.read(arguments.dropFirst()) {
                try invocation.run()
            } else {
                if let problem = SubcommandSuggestion.problem(arguments) { throw CommandFailure(problem, status: 2) }
                var command = try parseTranslateDirectly() ?? CQL.parseAsRoot()
                try command.run()
            }
        } catch let failure as CommandFailure {
            Output.flush()
            Output.error(failure.text)
            exitProcess(failure.status)
        } catch {
            Output.flush()
            let code = CQL.exitCode(for: error)
            if code == .success {
                // --help: printed through Output, so that a failed write is
                // reported as for every command's output.
                let text = CQL.fullMessage(for: error)
                if !text.isEmpty { Output.line(text) }
                Output.flush()
                exitProcess(0)
            }
            Output.error(CQL.fullMessage(for: error))
            exitProcess(2)
        }
        Output.flush()
        exitProcess(0)
    }

    /// `cql translate ...` read by ``Translate`` as the root command.
    ///
    /// Why: `CQL.parseAsRoot` first builds the argument sets of all seven
    /// subcommands by reflection, and each new (type, protocol) pair costs a
    /// scan of every conformance record in the binary (NIO and PostgresNIO
    /// bring thousands): ~37M instructions, several milliseconds, before a
    /// `translate --lines` run does any work. Reading the arguments with the
    /// one subcommand they name skips the other six. Anything that does not
    /// parse cleanly this way — `--help`, a bad option, a validation error —
    /// returns nil, and the full parse reads it again and gives the usual
    /// message and usage (parsing has no side effects). ``Translate`` names
    /// `cql` as its super-command, so help read this way still says
    /// `cql translate`, and argument-parser skips its check for
    /// `--generate-completion-script` (another two commands reflected), which
    /// only the root `cql` answers: through the full parse.
    static func parseTranslateDirectly() -> ParsableCommand? {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "translate" else { return nil }
        return try? Translate.parseAsRoot(Array(arguments.dropFirst()))
    }
}
