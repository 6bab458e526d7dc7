import Foundation
import TestSupport
import Testing

/// Where /proc is not mounted (a chroot, a sandbox), Swift's `CommandLine` has no arguments
/// on Linux: it finds them through /proc/self/maps. The programs take them from the C runtime
/// instead (glibc hands main's argc and argv to constructors), and find the companion by
/// their own path when /proc/self/exe is missing. Run under `unshare --mount` with an empty
/// tmpfs over /proc (root only; skipped, saying why, elsewhere).
enum WithoutProc {
    /// The command that runs a program with /proc hidden, when this machine allows it.
    static let prefix: [String]? = {
        let prefix = [
            "unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
            #"mount -t tmpfs none /proc && exec "$0" "$@""#,
        ]
        guard let probe = try? CLI.runProgram("/usr/bin/env", prefix + ["/bin/sh", "-c", "test ! -e /proc/self"]),
            probe.status == 0
        else { return nil }
        return prefix
    }()

    static func run(_ arguments: [String]) throws -> CLI.Result {
        try CLI.runProgram("/usr/bin/env", prefix! + [CLI.executable.path] + arguments)
    }
}

@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: WithoutProc.prefix != nil, "cannot hide /proc here (needs root and unshare)"))
struct NoProcCLITests {
    @Test func argumentsAreReadWithoutProc() throws {
        let version = try WithoutProc.run(["--version"])
        #expect(version.status == 0, "\(version.stderr)")
        #expect(version.stdout.hasPrefix("jwsinspect "), "\(version.stdout)")
        let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
        let verified = try WithoutProc.run(["--format", "jsonl", sample])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains(#""status":"valid""#), "\(verified.stdout.prefix(300))")
        // Not vacuous: a usage error is still one.
        #expect(try WithoutProc.run(["--no-such-option"]).status == 64)
    }

    @Test func fetchFindsItsCompanionWithoutProc() throws {
        let help = try WithoutProc.run(["fetch", "--version"])
        #expect(help.status == 0, "\(help.stderr)")
        let missing = try WithoutProc.run(["fetch", "transaction"])
        // The companion ran (it, not jwsinspect, reads the options): a usage error naming --key.
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("--key"), "\(missing.stderr)")
    }
}
