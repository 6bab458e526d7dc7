import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ChildProcess`, the one way the tests start a process: what it promises, each shown to fail
/// without it. The suite hung before it: a responder started while a CLI test ran took that
/// test's pipe along, and the test waited for end of file forever.
@Suite(.timeLimit(.minutes(10))) struct ChildProcessTests {
    /// A token whose record comes as soon as its line is read.
    static let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path

    /// The hang itself: a long-lived child starts while a CLI run's input is still open in this
    /// process. Had it taken the input's write end along, the run would never see end of input,
    /// and reading its output to the end would never finish.
    @Test func aChildStartedDuringAnotherRunLeavesThatRunsPipesAlone() throws {
        let token = try String(contentsOfFile: Self.sample, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let reader = try ChildProcess(
            CLI.executable.path, ["--format", "jsonl"], input: .pipe, timeout: .seconds(120))
        reader.write(Array((token + "\n").utf8))
        // The run has started and holds its pipes; now a server starts.
        _ = try reader.waitForOutput(within: .seconds(60)) { stdout, _ in stdout.contains(0x0a) ? () : nil }
        let server = try ChildProcess("sleep", ["600"], timeout: .seconds(120))
        defer { server.end() }
        reader.closeInput()
        let result = try reader.finish()
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.split(separator: "\n").count == 1)
    }

    /// A descriptor this process opened without close-on-exec (as another library's code may,
    /// at any moment on another thread) does not reach a child: it has 0, 1 and 2 only.
    @Test func aChildGetsItsThreeDescriptorsAndNoOther() throws {
        let stray = open("/dev/null", O_RDONLY)
        #expect(stray > 2)
        defer { close(stray) }
        #expect(fcntl(stray, F_GETFD) & FD_CLOEXEC == 0)
        // Listed once the shell waits in `read` (a builtin): the dynamic loader, which opens
        // libraries while a program starts, is done by then.
        let child = try ChildProcess("/bin/sh", ["-c", "echo ready; read line"], input: .pipe, timeout: .seconds(120))
        defer { child.end() }
        _ = try child.waitForOutput(within: .seconds(60)) { stdout, _ in stdout.contains(0x0a) ? () : nil }
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd").sorted()
        #expect(descriptors == ["0", "1", "2"])
    }

    /// Past its timeout a child is killed with everything it started, and the test fails with
    /// what it printed.
    @Test func aChildPastItsTimeoutIsEndedWithItsGroup() throws {
        let started = ContinuousClock.now
        let failure = #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess.run(
                "/bin/sh", ["-c", "echo started; sleep 600 & echo $!; wait"], timeout: .seconds(1))
        }
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(failure?.reason == .timedOut(.seconds(1)))
        let printed = String(decoding: failure?.stdout ?? [], as: UTF8.self)
        #expect(failure?.description.contains("still ran after 1.0 seconds: its process group was killed") == true)
        #expect(failure?.description.contains("started") == true, "\(failure?.description ?? "")")
        let sleeper = try #require(printed.split(separator: "\n").last.flatMap { Int32($0) })
        #expect(Self.isGone(sleeper))
    }

    /// What a child leaves running in its group when it exits is killed then: its output ends,
    /// and nothing holds the test.
    @Test func whatAChildLeavesRunningEndsWithIt() throws {
        let started = ContinuousClock.now
        let result = try ChildProcess.run("/bin/sh", ["-c", "sleep 600 & echo $!"], timeout: .seconds(120))
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(result.status == 0)
        let sleeper = try #require(Int32(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Self.isGone(sleeper))
    }

    /// A megabyte in, and a megabyte on each output: neither side waits for the other.
    @Test func largeInputAndBothOutputsFlowAtOnce() throws {
        let input = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", "head -c 1000000 /dev/zero >&2; cat"], input: .bytes(input), timeout: .seconds(120))
        #expect(result.status == 0)
        #expect(result.stdout == input)
        #expect(result.stderr.count == 1_000_000)
    }

    /// Input the child never reads is dropped when it exits: the write fails (EPIPE), and
    /// neither the test process nor the run ends by SIGPIPE.
    @Test func inputTheChildDoesNotReadIsDropped() throws {
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", "exec 0<&-; echo closed"], input: .bytes([UInt8](repeating: 0x61, count: 4 << 20)),
            timeout: .seconds(120))
        #expect(result.status == 0)
        #expect(result.stdoutText == "closed\n")
    }

    /// More output than the test keeps fails it, rather than being cut silently.
    @Test func outputOverTheLimitFailsTheTest() throws {
        let failure = #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess.run("head", ["-c", "5000", "/dev/zero"], timeout: .seconds(120), outputLimit: 1_000)
        }
        #expect(failure?.reason == .outputOverLimit(4_000))
    }

    /// No signal is blocked in a child, even when the thread that starts it blocks some (a test
    /// runner's threads may), and a child ended by one reads as a shell says it: 128 plus its
    /// number.
    @Test func aChildEndedBySignalReadsAsAShellSays() throws {
        var term = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &term, &previous)
        // sleep, not a shell: a shell may clear its mask itself.
        let child = Result { try ChildProcess("sleep", ["3"], timeout: .seconds(120)) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let sleeper = try child.get()
        kill(sleeper.pid, SIGTERM)
        #expect(try sleeper.finish().status == 128 + SIGTERM)
    }

    /// Every signal's action is the default in a child, whatever this process ignores: SIGUSR2
    /// ignored here while it starts still ends it (as a signal this process ignores, SIGPIPE
    /// say, would otherwise stay ignored in a child: `yes | head -1` would then complain).
    @Test func aChildsSignalsHaveTheirDefaultActions() throws {
        let previous = signal(SIGUSR2, SIG_IGN)
        let child = Result { try ChildProcess("sleep", ["3"], timeout: .seconds(120)) }
        signal(SIGUSR2, previous)
        let sleeper = try child.get()
        kill(sleeper.pid, SIGUSR2)
        #expect(try sleeper.finish().status == 128 + SIGUSR2)
        let quiet = try ChildProcess.run("/bin/sh", ["-c", "yes | head -1"], timeout: .seconds(120))
        #expect(quiet.stdoutText == "y\n" && quiet.stderrText == "", "\(quiet.stderrText)")
    }

    /// The environment and the folder are the ones given.
    @Test func environmentAndFolderAreTheOnesGiven() throws {
        let folder = try CLI.temporaryDirectory().resolvingSymlinksInPath()
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", "pwd; echo \"$ONLY\" \"${HOME-unset}\""], environment: ["ONLY": "this"],
            directory: folder, timeout: .seconds(120))
        #expect(result.stdoutText == "\(folder.path)\nthis unset\n")
    }

    /// `CLI.run` and `CLI.runProgram` start each program in a fresh folder of the test
    /// process's scratch space, never in the checkout: an example's `> webhooks.jsonl` once
    /// left a file there, and it was committed.
    @Test func theHarnessNeverStartsAProgramInTheCheckout() throws {
        let scratch = CLI.scratch.resolvingSymlinksInPath().path
        let first = try CLI.runProgram("/bin/sh", ["-c", "pwd; : > relative.txt"]).stdout
        let second = try CLI.runProgram("/bin/sh", ["-c", "pwd"]).stdout
        #expect(first.hasPrefix(scratch + "/") && second.hasPrefix(scratch + "/"), "\(first) \(second)")
        #expect(first != second)
        #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("relative.txt").path))
        let executable = try CLI.run(["mint", "ca", "--out", "relative-ca"])
        #expect(executable.status == 0, "\(executable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("relative-ca").path))
    }

    /// A test cancelled while it waits (its time limit has passed) ends its child.
    @Test func aCancelledWaitEndsTheChild() async throws {
        let waiting = Task { try ChildProcess.run("sleep", ["600"], timeout: .seconds(120)) }
        try await Task.sleep(for: .milliseconds(200))
        waiting.cancel()
        let started = ContinuousClock.now
        let outcome = await waiting.result
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(throws: ChildProcess.Failure.self) { try outcome.get() }
    }

    /// A program that cannot be started says so.
    @Test func aProgramThatCannotStartSaysSo() throws {
        let failure = #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess.run("/nonexistent/program", timeout: .seconds(120))
        }
        #expect(failure?.reason == .cannotStart(ENOENT))
    }

    /// The responders a suite with `.ocspResponders` starts, its PKI's and those its tests
    /// start, are gone when it ends: their ports refuse connections.
    @Test func respondersEndWithTheirSuite() async throws {
        let test = try #require(Test.current)
        let ports = Locked<[Int]>([])
        try await OCSPResponders().provideScope(for: test, testCase: nil) {
            let pki = OCSPResponders.pki
            let own = try OCSPResponder(
                folder: try CLI.temporaryDirectory(), name: "own", ca: pki.root, signer: pki.root, entries: [])
            // Not probed here: `openssl ocsp` (3.0) spins forever on a connection closed before
            // its request, serving no one after it. Each printed that it listens.
            ports.set([pki.leafResponder.port, pki.intermediateResponder.port, own.port])
        }
        #expect(ports.value.count == 3)
        #expect(!ports.value.contains(where: Self.accepts))
    }

    /// Whether a process has gone (no such process, or a zombie no one has reaped yet), waiting
    /// up to 10 s for it.
    static func isGone(_ pid: Int32) -> Bool {
        for _ in 0..<100 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return true }
            if stat[stat.index(close, offsetBy: 2)] == "Z" { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    /// Whether something listens on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}

/// The rule that a test starting a process has a time limit, shown on a suite without one.
@Suite struct ChildProcessTimeLimitTests {
    @Test func aTestWithoutATimeLimitIsToldSo() throws {
        try withKnownIssue("this suite has no time limit, on purpose") {
            _ = try ChildProcess.run("true", timeout: .seconds(120))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("has no time limit") }
        }
    }
}
