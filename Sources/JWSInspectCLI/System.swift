#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The operating system calls the command line makes, in one place, written once for Linux
/// (Glibc) and macOS (Darwin): both declare these POSIX functions, so no call names a module.
enum System {
    static let standardInput: Int32 = 0
    static let standardOutput: Int32 = 1
    static let standardError: Int32 = 2
    /// The error number of a write to a pipe whose reader has gone (`| head`).
    static let brokenPipe = EPIPE
    /// The error number of a closed descriptor.
    static let badDescriptor = EBADF

    /// The number of online processors (at least 1).
    static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// Ends the process with `status`.
    static func terminate(_ status: Int32) -> Never { exit(status) }

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// `strerror`'s text for an error number.
    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The error number of the last failed call.
    static var lastError: Int32 { errno }

    /// Whether a descriptor is open (`<&-` closes standard input before the program starts).
    static func isOpen(_ descriptor: Int32) -> Bool { fcntl(descriptor, F_GETFD) != -1 || errno != EBADF }

    /// Opens /dev/null on the lowest free descriptor (to fill a closed standard descriptor).
    static func occupyWithNull() { _ = open("/dev/null", O_RDONLY) }

    /// Writes all of `text`; nil when it was written, else the error number (EPIPE for a
    /// closed pipe, ENOSPC for a full disk, EBADF for a closed descriptor…).
    static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }

    /// Seconds on the monotonic clock.
    static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Waits `seconds` (at most a minute; interrupted waits resume).
    static func sleep(seconds: Double) {
        let seconds = min(max(seconds, 0), 60)
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1, errno == EINTR { request = remaining }
    }

    /// Creates a folder and any missing parents (mode 0700), as `mkdir -p`: nil, or why not.
    static func makeDirectory(_ path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if kind(ofPath: prefix) != .directory, mkdir(prefix, 0o700) != 0, errno != EEXIST {
                return errorText(errno)
            }
            prefix += "/"
        }
        return kind(ofPath: path) == .directory ? nil : errorText(ENOTDIR)
    }

    /// `name` inside `folder` ("DIR/name", with one slash whether or not `folder` ends in one).
    static func path(_ name: String, in folder: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Whether the folder holds nothing but `.` and `..`; nil when it cannot be read.
    static func isEmptyDirectory(_ path: String) -> Bool? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name != [0x2E] && name != [0x2E, 0x2E] { return false }
        }
        return true
    }

    /// Writes `bytes` to a new or truncated file, readable by its owner only unless `mode` says
    /// otherwise (an existing file gets `mode` too): nil, or why not.
    static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return errorText(errno) }
        if fchmod(descriptor, mode) != 0 {
            let reason = errorText(errno)
            close(descriptor)
            return reason
        }
        var offset = 0
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errorText(errno)
                    return
                }
                offset += written
            }
        }
        if close(descriptor) != 0, failure == nil { failure = errorText(errno) }
        return failure
    }

    /// Opens a file for reading: its descriptor, or the error number.
    static func openForReading(_ path: String) -> Result<Int32, SystemError> {
        let descriptor = open(path, O_RDONLY)
        return descriptor >= 0 ? .success(descriptor) : .failure(SystemError(errno))
    }

    static func closeDescriptor(_ descriptor: Int32) { close(descriptor) }

    /// A whole file of at most `limit` bytes (nil when larger), or why it cannot be read.
    static func readFile(_ path: String, limit: Int) -> Result<[UInt8]?, SystemError> {
        if kind(ofPath: path) == .directory { return .failure(SystemError(EISDIR, "it is a directory")) }
        let descriptor: Int32
        switch openForReading(path) {
        case .failure(let error): return .failure(error)
        case .success(let opened): descriptor = opened
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 14, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            switch readSome(descriptor, into: chunk) {
            case .failure(let error): return .failure(error)
            case .success(0): return .success(bytes)
            case .success(let count):
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                if bytes.count > limit { return .success(nil) }
            }
        }
    }

    /// Reads up to `buffer.count` bytes: how many (0 at the end), or the error number.
    static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemError> {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return .success(count) }
            if errno != EINTR { return .failure(SystemError(errno)) }
        }
    }

    /// The kind of file a descriptor or path names.
    enum FileKind { case directory, regular, other }

    static func kind(of descriptor: Int32) -> FileKind? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return kind(info)
    }

    static func kind(ofPath path: String) -> FileKind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return kind(info)
    }

    private static func kind(_ info: stat) -> FileKind {
        switch info.st_mode & S_IFMT {
        case S_IFDIR: .directory
        case S_IFREG: .regular
        default: .other
        }
    }

    /// Whether reading `descriptor` now would return at once (data, or the end), without waiting.
    static func canReadWithoutWaiting(_ descriptor: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, 0) != 0
    }
}

/// An error number from a system call, described by `strerror`.
struct SystemError: Error, CustomStringConvertible {
    let code: Int32
    /// A plainer phrase than `strerror`'s, where there is one.
    private let phrase: String?

    init(_ code: Int32, _ phrase: String? = nil) {
        self.code = code
        self.phrase = phrase
    }

    var description: String { phrase ?? System.errorText(code) }
}
