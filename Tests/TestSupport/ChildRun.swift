internal import CChildProcess
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// One started child and the thread that serves it: writes its input, reads its outputs,
/// notices its exit, kills its group at the deadline, and reaps it. `ChildProcess` is its face;
/// this is shared with the thread, so that `ChildProcess.deinit` can end a child whose thread
/// still runs.
///
/// `@unchecked Sendable`: everything mutable is guarded by `condition`; the descriptors are
/// the thread's alone once it has started.
final class ChildRun: @unchecked Sendable {
    let pid: pid_t
    private let command: String
    private let deadline: ContinuousClock.Instant
    private let timeout: Duration
    private let limit: Int
    private let condition = NSCondition()

    // Guarded by `condition`.
    private var outputs: [[UInt8]] = [[], []]
    private var dropped = [0, 0]
    /// Input not yet written: `pendingInput[inputWritten...]`.
    private var pendingInput: [UInt8] = []
    private var inputWritten = 0
    private var inputOpen: Bool
    /// Set when the child is reaped: it is gone, and its process group ID may be reused.
    private var status: Int32?
    /// Why it was ended before its own end, if it was.
    private var ending: ChildProcess.Failure.Reason?
    /// The thread has closed every descriptor and stopped.
    private var served = false

    // The thread's.
    private var outputEnds: [Int32?]
    private var inputEnd: Int32?
    private let wake: (read: Int32, write: Int32)

    /// How long output may stay open after the child exited and its group was killed.
    private static let drainGrace: Duration = .seconds(5)
    /// How often the thread looks for the child's exit while nothing else happens.
    private static let slice: Duration = .milliseconds(20)

    init(
        executable: String, arguments: [String], environment: [String: String]?, directory: URL?,
        input: ChildProcess.Input, timeout: Duration, outputLimit: Int, command: String
    ) throws {
        self.command = command
        self.timeout = timeout
        limit = outputLimit
        // Every end close-on-exec (no other way of starting a process takes one along) and the
        // test's ends non-blocking (the thread waits in poll).
        func pipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard CChildProcess_pipe(&ends) == 0 else {
                throw ChildProcess.Failure(reason: .cannotStart(errno), command: command, stdout: [], stderr: [])
            }
            return (ends[0], ends[1])
        }
        let out = try pipe()
        let err = try pipe()
        let wake = try pipe()
        var stdin: (read: Int32, write: Int32)?
        if case .nullDevice = input {} else { stdin = try pipe() }
        // The ends the test keeps: non-blocking, and closed here if the child cannot start.
        let kept = [out.read, err.read, wake.read, wake.write] + [stdin?.write].compactMap({ $0 })
        for end in kept {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        let started = argv.withUnsafeBufferPointer { argvBuffer in
            let spawn = { (envp: UnsafePointer<UnsafeMutablePointer<CChar>?>?) in
                CChildProcess_spawn(
                    &pid, executable, argvBuffer.baseAddress, envp, directory?.path, stdin?.read ?? -1, out.write,
                    err.write)
            }
            guard let envp else { return spawn(environ) }
            return envp.withUnsafeBufferPointer { spawn($0.baseAddress) }
        }
        for pointer in argv + (envp ?? []) { free(pointer) }
        // The child has its copies; the test keeps its own ends only.
        for end in [out.write, err.write] + [stdin?.read].compactMap({ $0 }) { close(end) }
        guard started == 0 else {
            for end in kept { close(end) }
            throw ChildProcess.Failure(reason: .cannotStart(started), command: command, stdout: [], stderr: [])
        }
        self.pid = pid
        deadline = .now + timeout
        outputEnds = [out.read, err.read]
        inputEnd = stdin?.write
        self.wake = wake
        switch input {
        case .nullDevice: inputOpen = false
        case .bytes(let bytes):
            pendingInput = bytes
            inputOpen = false
        case .pipe: inputOpen = true
        }
        let thread = Thread { [self] in serve() }
        thread.name = "child \(pid)"
        thread.start()
    }

    // MARK: The test's side

    func write(_ bytes: [UInt8]) {
        condition.withLock {
            precondition(inputOpen, "ChildProcess.write: the input is not an open pipe")
            pendingInput += bytes
            wakeThread()
        }
    }

    func closeInput() {
        condition.withLock {
            inputOpen = false
            wakeThread()
        }
    }

    func waitForOutput<Value>(within wait: Duration, _ ready: ([UInt8], [UInt8]) -> Value?) throws -> Value {
        let until = ContinuousClock.now + wait
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value = ready(outputs[0], outputs[1]) { return value }
            if let ending { throw failure(ending) }
            // Served: it has ended and everything it printed has been read.
            if served { throw failure(.exitedBeforeReady(status ?? -1)) }
            if ContinuousClock.now >= until { throw failure(.notReady(wait)) }
            if Task.isCancelled {
                endLocked(because: .cancelled)
                throw failure(.cancelled)
            }
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
        }
    }

    func finish() throws -> ChildProcess.Result {
        condition.lock()
        defer { condition.unlock() }
        while !served {
            if Task.isCancelled { endLocked(because: .cancelled) }
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
        }
        if let ending { throw failure(ending) }
        if let index = dropped.firstIndex(where: { $0 > 0 }) { throw failure(.outputOverLimit(dropped[index])) }
        return ChildProcess.Result(status: status ?? -1, stdout: outputs[0], stderr: outputs[1])
    }

    /// Kills the group if the child still runs, and waits until the thread has reaped it.
    func end(because reason: ChildProcess.Failure.Reason) {
        condition.lock()
        defer { condition.unlock() }
        endLocked(because: reason)
        while status == nil && !served { condition.wait() }
    }

    /// Kills the child's group, once, and says why (the first reason given stays); the lock is
    /// held.
    private func endLocked(because reason: ChildProcess.Failure.Reason) {
        // Not reaped yet, so the group ID is still the child's own.
        guard status == nil, ending == nil else { return }
        ending = reason
        // The group; the child alone if it leads none (then what it started is not reached).
        if kill(-pid, SIGKILL) != 0 { kill(pid, SIGKILL) }
        wakeThread()
    }

    private func failure(_ reason: ChildProcess.Failure.Reason) -> ChildProcess.Failure {
        ChildProcess.Failure(reason: reason, command: command, stdout: outputs[0], stderr: outputs[1])
    }

    /// Wakes the thread from poll; the lock is held (the thread closes the pipe under it).
    private func wakeThread() {
        guard !served else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    // MARK: The thread's side

    private func serve() {
        // A write to an input whose reader has gone fails with EPIPE: SIGPIPE, sent to the
        // writing thread, stays blocked and pending here, and nothing else in the test process
        // changes (a process-wide SIG_IGN would reach what others start).
        var brokenPipe = sigset_t()
        sigemptyset(&brokenPipe)
        sigaddset(&brokenPipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &brokenPipe, nil)
        var exitedAt: ContinuousClock.Instant?
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (pending, closing) = condition.withLock {
                let pending = inputWritten < pendingInput.count
                return (pending, !inputOpen && !pending)
            }
            if closing, let end = inputEnd {
                close(end)
                inputEnd = nil
            }
            let open = outputEnds.compactMap { $0 }
            if open.isEmpty && exitedAt != nil { break }
            var watched = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            watched += open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if pending, let end = inputEnd { watched.append(pollfd(fd: end, events: Int16(POLLOUT), revents: 0)) }
            _ = poll(&watched, nfds_t(watched.count), Int32(Self.milliseconds(Self.slice)))
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wake.read, &drain, drain.count) > 0 {}
            for index in outputEnds.indices {
                guard let end = outputEnds[index] else { continue }
                let count = read(end, &buffer, buffer.count)
                if count > 0 {
                    condition.withLock {
                        let kept = max(0, min(count, limit - outputs[index].count))
                        outputs[index] += buffer[0..<kept]
                        dropped[index] += count - kept
                    }
                } else if count == 0 || errno != EAGAIN && errno != EINTR {
                    close(end)
                    outputEnds[index] = nil
                }
            }
            if pending, let end = inputEnd { writeInput(end) }
            if exitedAt == nil && reapIfExited() { exitedAt = .now }
            if exitedAt == nil && ContinuousClock.now >= deadline {
                condition.withLock { endLocked(because: .timedOut(timeout)) }
            }
            if let exitedAt, ContinuousClock.now - exitedAt > Self.drainGrace {
                // Its group is dead and the output is still open: something outside holds it.
                for end in outputEnds.compactMap({ $0 }) { close(end) }
                outputEnds = [nil, nil]
                condition.withLock { if ending == nil { ending = .outputHeldOpen } }
                break
            }
            condition.withLock { condition.broadcast() }
        }
        if let end = inputEnd { close(end) }
        inputEnd = nil
        condition.withLock {
            close(wake.read)
            close(wake.write)
            served = true
            condition.broadcast()
        }
    }

    private func writeInput(_ end: Int32) {
        condition.withLock {
            let written = pendingInput[inputWritten...].withUnsafeBytes {
                Glibc.write(end, $0.baseAddress, min($0.count, 65_536))
            }
            if written > 0 {
                inputWritten += written
            } else if written < 0 && errno != EAGAIN && errno != EINTR {
                // The child closed its input (EPIPE): what it did not read is dropped.
                inputWritten = pendingInput.count
                inputOpen = false
            }
            if inputWritten == pendingInput.count {
                pendingInput = []
                inputWritten = 0
            }
        }
    }

    /// If the child has exited: kills what it left in its group, reaps it and keeps its status.
    private func reapIfExited() -> Bool {
        var info = siginfo_t()
        // WNOWAIT: the child stays a zombie, so its group ID cannot be reused before the kill.
        let looked = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        guard looked == 0 && info.si_signo == SIGCHLD || looked != 0 && errno == ECHILD else { return false }
        condition.withLock {
            kill(-pid, SIGKILL)
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, 0)
            // Exited: the code in bits 8-15; killed: 128 + the signal, as a shell says.
            status = reaped != pid ? -1 : raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            condition.broadcast()
        }
        return true
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
