import Foundation
import TestSupport
import Testing

/// The executable's output contract where the operating system is involved: a full disk, a
/// closed standard output, a reader that goes away, a stream that stalls, and a terminal.
@Suite(.timeLimit(.minutes(10))) struct OutputContractTests {
    static let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path
    static let notification = CLI.packageRoot.appendingPathComponent("Samples/notification-subscribed-sandbox-2025.jws")
        .path

    /// A shell command line running the executable (`$B`), for redirections a `ChildProcess` cannot make.
    static func shell(_ script: String) throws -> CLI.Result {
        try CLI.runProgram("/bin/sh", ["-c", "B='\(CLI.executable.path)'; S='\(sample)'; " + script])
    }

    /// Output to /dev/full used to be lost with exit 0 and nothing said, in every format.
    @Test(arguments: [
        "--json \"$S\"", "--format jsonl \"$S\"", "\"$S\"", "--help", "--version", "help --man", "completion bash",
    ])
    func aFullDiskIsAnError(_ arguments: String) throws {
        let result = try Self.shell("$B \(arguments) >/dev/full")
        #expect(result.status == 74)
        #expect(result.stderr == "jwsinspect: write error: No space left on device\n")
    }

    @Test func aClosedStandardOutputIsAnError() throws {
        let result = try Self.shell("$B --json \"$S\" >&-")
        #expect(result.status == 74)
        #expect(result.stderr == "jwsinspect: write error: Bad file descriptor\n")
    }

    /// `| head -1`: the reader goes away; nothing is said.
    @Test func aClosedPipeStaysQuiet() throws {
        let result = try Self.shell("yes \"$(cat \"$S\")\" | head -2000 | $B --format jsonl | head -1 >/dev/null")
        #expect(result.stderr.isEmpty)
    }

    /// `tail -f webhooks.log | jwsinspect --format jsonl`: the first result is shown while the
    /// input is still open (it used to wait for 64 KB or the end of the input).
    @Test func aStalledStreamShowsWhatIsDone() throws {
        let token = try String(contentsOfFile: Self.sample, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let notificationBody =
            "{\"signedPayload\":\""
            + (try String(contentsOfFile: Self.notification, encoding: .utf8))
            .trimmingCharacters(in: .whitespacesAndNewlines) + "\"}"
        for first in [token, notificationBody] {
            let process = try ChildProcess(CLI.executable.path, ["--format", "jsonl"], input: .pipe)
            process.write(Array((first + "\n").utf8))
            // The input stays open: the first line of output must come anyway. A guard of 60 s
            // against a hang (the executable answers in milliseconds).
            let firstLine = try process.waitForOutput(within: .seconds(60)) { stdout, _ in
                stdout.firstIndex(of: 0x0a).map { String(decoding: stdout[..<$0], as: UTF8.self) }
            }
            process.closeInput()
            _ = try process.finish()
            #expect(firstLine.contains("\"status\":\"valid\""))
        }
    }

    /// A paste longer than a terminal's 4096-character line, typed into a terminal (a
    /// pseudo-terminal made by `script`), then Enter and Ctrl-D: read whole, not cut.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script (util-linux) is not installed")
    )
    func aLongPasteIntoATerminalIsReadWhole() throws {
        let result = try Self.shell(
            "(sleep 1; cat '\(Self.notification)'; printf '\\n'; sleep 1; printf '\\004') "
                + "| /usr/bin/script -qec \"$B --format jsonl\" /dev/null")
        let size = try FileManager.default.attributesOfItem(atPath: Self.notification)[.size] as? Int ?? 0
        #expect(size > 4096)
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"type\":\"notification\",\"envelope\":\"compactJWS\",\"status\":\"valid\""))
    }
}
