internal import FoundationEssentials
internal import JWSInspectCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The log `jwsinspect listen --log` keeps: one JSON line a record, appended and never
/// rewritten. A `stored` record holds a notification's body as it came, once per
/// `notificationUUID`; a `forwarded` record says `--forward-to` delivered one.
///
/// Exactly once: `append` returns only after its line is written and `fsync`ed, so what it
/// says is stored is on the disk before anyone is told so; the lines appended while one batch
/// is written wait and go together in the next (group commit: one write and one `fsync` for
/// the requests that arrived together). A key stored, or being stored, is never appended again;
/// the keys are rebuilt from the log when it is opened, 16 bytes each.
///
/// A crash can leave at most a partial last line (a line is written whole, then synced):
/// opening sets it aside into `LOG.torn` and cuts the log back to its last whole line. A line
/// that is not a record in the middle of the log is refused, never skipped: its key would be
/// lost, and a repeat of its notification stored twice.
final class NotificationLog: @unchecked Sendable {
    /// A notification's identity: its `notificationUUID`'s 16 bytes (any case, one key), or the
    /// first 16 bytes of the SHA-256 of one that is not a UUID.
    struct Key: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        init(notificationUUID text: String) {
            let bytes: [UInt8]
            if let uuid = UUID(uuidString: text) {
                bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            } else {
                bytes = Array(Digest.sha256(Array(text.utf8)).prefix(16))
            }
            high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
            low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// A stored record's line in the log.
    struct Entry: Sendable, Equatable {
        let key: Key
        let offset: Int
        /// Without its newline.
        let length: Int
    }

    enum Appended: Sendable, Equatable {
        case stored(Entry)
        /// The key was stored already (or while this append waited): nothing was written.
        case repeated
        /// Not written (or written and then cut back off): why.
        case failed(String)
    }

    /// What opening found.
    struct Recovery: Sendable {
        /// `stored` records.
        var stored = 0
        /// `forwarded` records.
        var forwarded = 0
        /// Bytes of a partial or unreadable last line, set aside.
        var setAside = 0
        /// Where they were set aside.
        var setAsidePath: String?
        /// Stored records with a key stored before them (the log was edited): kept, not used.
        var duplicates = 0
        /// The stored records no `forwarded` record follows, in log order.
        var unforwarded: [Entry] = []
    }

    struct Failure: Error, Sendable {
        let message: String
        /// The log could not be read or written, rather than read and found wrong.
        let isSystem: Bool
    }

    /// The longest line read when the log is opened: a body is at most 1 MiB, escaped at most six
    /// bytes a byte, with its record around it.
    static let maximumLineBytes = 8 << 20

    let path: String
    private let descriptor: Int32
    /// Guarded by `condition`.
    private var state: State
    private let condition = Condition()

    private struct State {
        var keys: Set<Key> = []
        var size: Int
        var queue: [Pending] = []
        var inFlight: [Key: Pending] = [:]
        var writing = false
        /// Set when a failed write could not be cut back off: nothing more is appended.
        var broken: String?
    }

    private final class Pending {
        let key: Key?
        let line: [UInt8]
        var result: Appended?

        init(key: Key?, line: [UInt8]) {
            self.key = key
            self.line = line
        }
    }

    private init(path: String, descriptor: Int32, keys: Set<Key>, size: Int) {
        self.path = path
        self.descriptor = descriptor
        state = State(keys: keys, size: size)
    }

    deinit {
        close(descriptor)
    }

    /// Keys stored.
    var count: Int { locked { $0.keys.count } }

    /// Whether `key` is stored.
    func contains(_ key: Key) -> Bool { locked { $0.keys.contains(key) } }

    private func locked<Value>(_ body: (State) -> Value) -> Value {
        condition.locked { body(state) }
    }

    /// Appends `line` (one JSON record, no newline) for `key` unless it is stored already;
    /// returns when the line is on the disk, or why it is not. `key` nil: a record that is no
    /// notification (`forwarded`), appended whatever was stored.
    func append(_ line: [UInt8], key: Key?) -> Appended {
        condition.lock()
        defer { condition.unlock() }
        if let broken = state.broken { return .failed(broken) }
        if let key, state.keys.contains(key) { return .repeated }
        // The same key in a batch being written: its outcome is this one's.
        if let key, let other = state.inFlight[key] {
            while other.result == nil { condition.wait() }
            if case .failed(let reason) = other.result { return .failed(reason) }
            return .repeated
        }
        let mine = Pending(key: key, line: line)
        state.queue.append(mine)
        if let key { state.inFlight[key] = mine }
        while mine.result == nil {
            // One appender at a time writes what is queued; the others wait for its sync.
            guard !state.writing else {
                condition.wait()
                continue
            }
            state.writing = true
            let batch = state.queue
            let start = state.size
            state.queue.removeAll()
            condition.unlock()
            let written = writeBatch(batch, at: start)
            condition.lock()
            switch written {
            case .success(let end):
                var offset = start
                for pending in batch {
                    if let key = pending.key { state.keys.insert(key) }
                    pending.result = .stored(
                        Entry(key: pending.key ?? Key(high: 0, low: 0), offset: offset, length: pending.line.count))
                    offset += pending.line.count + 1
                }
                state.size = end
            case .failure(let failure):
                for pending in batch { pending.result = .failed(failure.reason) }
                if failure.broken { state.broken = failure.reason }
            }
            for pending in batch { if let key = pending.key { state.inFlight[key] = nil } }
            state.writing = false
            condition.broadcast()
        }
        return mine.result ?? .failed("internal error: no outcome")
    }

    private struct WriteFailure: Error {
        let reason: String
        /// The log may now end with part of a line: nothing more may be appended.
        let broken: Bool
    }

    /// Writes the lines at `start` and syncs them: the log's new size, or why not (after
    /// cutting the log back to `start`).
    private func writeBatch(_ batch: [Pending], at start: Int) -> Result<Int, WriteFailure> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(batch.reduce(0) { $0 + $1.line.count + 1 })
        for pending in batch {
            bytes += pending.line
            bytes.append(UInt8(ascii: "\n"))
        }
        var failure: String?
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let written = pwrite(
                    descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(start + offset))
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "writing \(path): \(System.errorText(errno))"
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = "syncing \(path) to the disk: \(System.errorText(errno))"
        }
        guard let failure else { return .success(start + bytes.count) }
        // Nothing of this batch is acknowledged: cut it back off, so that no partial line stays.
        if ftruncate(descriptor, off_t(start)) != 0 || fsync(descriptor) != 0 {
            return .failure(
                WriteFailure(
                    reason: failure + "; and the partial write could not be cut back off ("
                        + System.errorText(errno) + "): restart listen, which sets it aside",
                    broken: true))
        }
        return .failure(WriteFailure(reason: failure, broken: false))
    }

    /// The line of a stored record (without its newline), read back from the log.
    func line(_ entry: Entry) -> [UInt8]? {
        Self.read(descriptor, at: entry.offset, count: entry.length)
    }

    /// `count` bytes of the file at `offset`, or nil when they cannot all be read (errno says why).
    private static func read(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var read = 0
        let complete = bytes.withUnsafeMutableBytes { buffer -> Bool in
            while read < buffer.count {
                let got = pread(descriptor, buffer.baseAddress! + read, buffer.count - read, off_t(offset + read))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                read += got
            }
            return true
        }
        return complete ? bytes : nil
    }

    // MARK: Opening

    /// Opens the log at `path` (made, mode 0600, when it is not there), locks it against another
    /// listener, reads its keys, and sets aside a partial last line.
    static func openLog(_ path: String) -> Result<(NotificationLog, Recovery), Failure> {
        func system(_ what: String) -> Failure {
            Failure(message: "\(path): \(what)", isSystem: true)
        }
        var existing = stat()
        let existed = lstat(path, &existing) == 0
        if existed, existing.st_mode & S_IFMT != S_IFREG {
            return .failure(
                system(
                    existing.st_mode & S_IFMT == S_IFLNK
                        ? "it is a symbolic link, which listen neither writes through nor follows (give the file's own path)"
                        : "it is not a regular file (give a file's path for --log)"))
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            return .failure(
                system(errno == ELOOP ? "it is a symbolic link, which listen does not follow" : System.errorText(errno))
            )
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return .failure(system("it is not a regular file (give a file's path for --log)"))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            close(descriptor)
            return .failure(
                system(
                    busy
                        ? "another jwsinspect listen (or listen --import) has it open: stop it, or give another --log"
                        : "cannot be locked: \(System.errorText(errno))"))
        }
        if !existed { syncFolder(of: path) }
        switch readRecords(descriptor, path: path) {
        case .failure(let failure):
            close(descriptor)
            return .failure(failure)
        case .success(let (found, keys, goodEnd, end)):
            var recovery = found
            if goodEnd < end {
                switch setAside(descriptor, from: goodEnd, to: end, path: path) {
                case .failure(let failure):
                    close(descriptor)
                    return .failure(failure)
                case .success(let aside):
                    recovery.setAside = end - goodEnd
                    recovery.setAsidePath = aside
                }
            }
            return .success((NotificationLog(path: path, descriptor: descriptor, keys: keys, size: goodEnd), recovery))
        }
    }

    /// Reads every line: the recovery, the keys, the end of the last whole record, the end of the file.
    private static func readRecords(_ descriptor: Int32, path: String)
        -> Result<(Recovery, Set<Key>, Int, Int), Failure>
    {
        var recovery = Recovery()
        var keys: Set<Key> = []
        var forwarded: Set<Key> = []
        var stored: [Entry] = []
        var line: [UInt8] = []
        var lineStart = 0
        var lineNumber = 0
        var goodEnd = 0
        /// The first line after the last good one that is not a record: refused if a good one follows.
        var firstBad: (number: Int, reason: String)?
        var offset = 0
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = pread(descriptor, chunk.baseAddress!, chunk.count, off_t(offset))
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                return .failure(Failure(message: "\(path): \(System.errorText(errno))", isSystem: true))
            }
            if count == 0 { break }
            var position = 0
            let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
            while position < count {
                guard let newline = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) else {
                    line.append(contentsOf: bytes[position...])
                    position = count
                    break
                }
                line.append(contentsOf: bytes[position..<newline])
                position = newline + 1
                lineNumber += 1
                let end = offset + position
                switch record(line) {
                case .success(let parsed):
                    if let bad = firstBad {
                        return .failure(
                            Failure(
                                message: "\(path): line \(bad.number) is not a record listen writes (\(bad.reason)), "
                                    + "and records follow it: move it out of the log, or give another --log",
                                isSystem: false))
                    }
                    switch parsed {
                    case .stored(let key):
                        recovery.stored += 1
                        if keys.insert(key).inserted {
                            stored.append(Entry(key: key, offset: lineStart, length: line.count))
                        } else {
                            recovery.duplicates += 1
                        }
                    case .forwarded(let key):
                        recovery.forwarded += 1
                        forwarded.insert(key)
                    }
                    goodEnd = end
                case .failure(let reason):
                    if firstBad == nil { firstBad = (lineNumber, reason.reason) }
                }
                line.removeAll(keepingCapacity: true)
                lineStart = end
            }
            guard line.count <= maximumLineBytes else {
                return .failure(
                    Failure(
                        message: "\(path): line \(lineNumber + 1) is over \(maximumLineBytes >> 20) MiB: it is no log "
                            + "listen writes; give another --log",
                        isSystem: false))
            }
            offset += count
        }
        recovery.unforwarded = stored.filter { !forwarded.contains($0.key) }
        return .success((recovery, keys, goodEnd, offset))
    }

    private enum Parsed {
        case stored(Key)
        case forwarded(Key)
    }

    private struct NotARecord: Error {
        let reason: String
    }

    /// The record a line holds, or why it holds none.
    private static func record(_ line: [UInt8]) -> Result<Parsed, NotARecord> {
        guard !line.isEmpty else { return .failure(NotARecord(reason: "an empty line")) }
        guard case .success(let members) = JSONValue.strictObject(line) else {
            return .failure(NotARecord(reason: "not a JSON object"))
        }
        guard case .string(let uuid)? = members["notificationUUID"] else {
            return .failure(NotARecord(reason: "no notificationUUID"))
        }
        switch members["record"] {
        case .string("stored")?:
            guard case .string? = members["body"] else {
                return .failure(NotARecord(reason: "a stored record without its body"))
            }
            return .success(.stored(Key(notificationUUID: uuid)))
        case .string("forwarded")?: return .success(.forwarded(Key(notificationUUID: uuid)))
        default: return .failure(NotARecord(reason: "no record listen writes"))
        }
    }

    /// Appends the bytes from `start` to `end` to `PATH.torn`, syncs it, then cuts the log back
    /// to `start` and syncs it: where they went.
    private static func setAside(_ descriptor: Int32, from start: Int, to end: Int, path: String)
        -> Result<String, Failure>
    {
        let aside = path + ".torn"
        func failure(_ what: String) -> Failure {
            Failure(
                message: "\(path) ends with \(end - start) bytes that are no whole record (a write cut short), and "
                    + "setting them aside into \(aside) failed: \(what)",
                isSystem: true)
        }
        guard var bytes = read(descriptor, at: start, count: end - start) else {
            return .failure(failure(System.errorText(errno)))
        }
        var before = stat()
        if lstat(aside, &before) == 0, before.st_mode & S_IFMT != S_IFREG {
            return .failure(failure("it is not a regular file"))
        }
        let out = open(aside, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard out >= 0 else { return .failure(failure(System.errorText(errno))) }
        defer { close(out) }
        bytes.append(UInt8(ascii: "\n"))
        if let error = System.writeAll(bytes, to: out) { return .failure(failure(System.errorText(error))) }
        guard fsync(out) == 0 else { return .failure(failure(System.errorText(errno))) }
        guard ftruncate(descriptor, off_t(start)) == 0, fsync(descriptor) == 0 else {
            return .failure(failure("cutting the log back: \(System.errorText(errno))"))
        }
        return .success(aside)
    }

    /// Syncs the folder holding `path`, so that a new file's name survives a crash too.
    private static func syncFolder(of path: String) {
        let directory = open(System.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }
}
