internal import CProgram
internal import JWSInspectCore

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
    static let nameTooLong = ENAMETOOLONG

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

    /// The process's arguments, the program's name first, as main received them: from the C
    /// runtime where it hands them over (glibc), else from Swift's `CommandLine`, which on Linux
    /// finds them through /proc and so has none where /proc is not mounted (a chroot).
    static let rawArguments: [[UInt8]] = {
        var count: Int32 = 0
        let values: [UnsafeMutablePointer<CChar>?]
        if let captured = jwsinspect_arguments(&count), count > 0 {
            values = (0..<Int(count)).map { captured[$0] }
        } else {
            values = (0..<Int(CommandLine.argc)).map { CommandLine.unsafeArgv[$0] }
        }
        return values.map { pointer in
            guard let pointer else { return [] }
            return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
        }
    }()

    /// `rawArguments` as text (bytes that are not UTF-8 each read as U+FFFD, as
    /// `CommandLine.arguments` reads them).
    static let arguments: [String] = rawArguments.map { String(decoding: $0, as: UTF8.self) }

    /// This executable's path, symbolic links resolved (Linux: /proc/self/exe; without /proc,
    /// or elsewhere, the program's name when it is a path).
    static func executablePath() -> String? {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            if length > 0 {
                return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        #endif
        guard let name = arguments.first, name.contains("/"), let resolved = realpath(name, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` is a regular file this process may execute.
    static func isExecutableFile(_ path: String) -> Bool {
        kind(ofPath: path) == .regular && access(path, X_OK) == 0
    }

    /// Runs `path` in this process's place with `arguments` (after argv[0], which is `path`),
    /// the environment and open descriptors unchanged; returns only when that fails, with why.
    static func execute(_ path: String, arguments: [String]) -> String {
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        defer { for argument in argv { free(argument) } }
        execv(path, argv)
        return errorText(errno)
    }

    /// Opens /dev/null on the lowest free descriptor (to fill a closed standard descriptor).
    static func occupyWithNull() { _ = open("/dev/null", O_RDONLY) }

    /// Writes all of `text`; nil when it was written, else the error number (EPIPE for a
    /// closed pipe, ENOSPC for a full disk, EBADF for a closed descriptor…).
    static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    /// Writes all of `bytes`: nil, or the error number.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// Writes all of `buffer`: nil, or the error number.
    private static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
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
    private static func makeDirectory(_ path: String) -> String? {
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

    /// Why a folder cannot be written in, as `prepareFolder` says it.
    enum FolderFailure: Error {
        /// It is missing and cannot be created, or is not a folder: why (`strerror`'s text).
        case cannotCreate(String)
        /// It exists but others could change what is written there (`folderProblem`).
        case unsafe(String)

        /// "cannot create folder 'DIR': Not a directory", "will not write in folder 'DIR': …".
        func message(_ shown: String) -> String {
            switch self {
            case .cannotCreate(let reason): "cannot create folder '\(shown)': \(reason)"
            case .unsafe(let reason): "will not write in folder '\(shown)': \(reason)"
            }
        }
    }

    /// Makes `path` a folder to write files in: created with its missing parents (mode 0700)
    /// when missing, and refused when it is one others could change (`folderProblem`).
    static func prepareFolder(_ path: String) -> FolderFailure? {
        if let reason = makeDirectory(path) { return .cannotCreate(reason) }
        var info = stat()
        guard stat(path, &info) == 0 else { return .cannotCreate(errorText(errno)) }
        return folderProblem(info).map(FolderFailure.unsafe)
    }

    /// Why a folder is not one to write files in, or nil. It must belong to this user (or root),
    /// and no one else may write in it, unless its sticky bit is set (as /tmp's is: then no one
    /// can rename or remove another's file) or the group that may is its owner's private group
    /// (named after the owner, the owner's primary group, no other members listed: the user
    /// private groups that a umask of 002 goes with).
    private static func folderProblem(_ info: stat) -> String? {
        guard info.st_mode & S_IFMT == S_IFDIR else { return errorText(ENOTDIR) }
        let octal = String(info.st_mode & 0o7777, radix: 8)
        let mode = "mode " + String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        if info.st_uid != geteuid() && info.st_uid != 0 {
            return "it belongs to another user (uid \(info.st_uid)), who could replace what is written there"
        }
        guard info.st_mode & S_ISVTX == 0 else { return nil }
        if info.st_mode & S_IWOTH != 0 {
            return "anyone may write in it (\(mode), no sticky bit) and so replace what is written there; "
                + "chmod o-w it or choose another"
        }
        if info.st_mode & S_IWGRP != 0, !isPrivateGroup(info.st_gid, of: info.st_uid) {
            return "its group (gid \(info.st_gid)) may write in it (\(mode)) and so replace what is written there; "
                + "chmod g-w it or choose another"
        }
        return nil
    }

    /// Whether `groupID` is `user`'s private group: the user's primary group, named as the user
    /// is, and listing no other member.
    private static func isPrivateGroup(_ groupID: gid_t, of user: uid_t) -> Bool {
        var account = passwd()
        var accountResult: UnsafeMutablePointer<passwd>?
        var accountBuffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(user, &account, &accountBuffer, accountBuffer.count, &accountResult) == 0,
            accountResult != nil, account.pw_gid == groupID, let userName = account.pw_name
        else { return false }
        var entry = group()
        var entryResult: UnsafeMutablePointer<group>?
        var entryBuffer = [CChar](repeating: 0, count: 64 * 1024)
        guard getgrgid_r(groupID, &entry, &entryBuffer, entryBuffer.count, &entryResult) == 0, entryResult != nil,
            let groupName = entry.gr_name, strcmp(groupName, userName) == 0
        else { return false }
        var member = entry.gr_mem
        while let name = member?.pointee {
            if strcmp(name, userName) != 0 { return false }
            member = member.map { $0 + 1 }
        }
        return true
    }

    /// Writes `bytes` as the file `path`, with `mode` (0600, its owner's only, unless said
    /// otherwise): nil, or why not. Nothing is ever written through a symbolic link or into a
    /// file that is there: the bytes go to a new temporary file in the same folder (`O_CREAT |
    /// O_EXCL | O_NOFOLLOW`, given `mode` by its own descriptor), which is then renamed over
    /// `path`, so a hard link at `path` keeps its old content and readers see the whole file or
    /// none. A symbolic link (or anything but a regular file) at `path` is refused, not replaced,
    /// and so is a folder `folderProblem` refuses; the folder's own path is followed, as given.
    static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) -> String? {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let name = String(slash.map { path[path.utf8.index(after: $0)...] } ?? path[...])
        let folder = self.folder(of: path)
        guard !name.isEmpty, name != ".", name != ".." else { return errorText(EISDIR) }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return "its folder: \(errorText(errno))" }
        defer { close(directory) }
        var info = stat()
        guard fstat(directory, &info) == 0 else { return errorText(errno) }
        if let problem = folderProblem(info) { return "its folder is refused: \(problem)" }
        var existing = stat()
        if fstatat(directory, name, &existing, AT_SYMLINK_NOFOLLOW) == 0 {
            switch existing.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK:
                return "it is a symbolic link, which jwsinspect neither writes through nor replaces (remove it)"
            case S_IFDIR: return errorText(EISDIR)
            default: return "it is there and is not a regular file"
            }
        } else if errno != ENOENT {
            return errorText(errno)
        }
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<16 {
            temporary = ".\(name).\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
            descriptor = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { return errorText(errno) }
        var failure: String?
        // The new file's own descriptor: the umask does not narrow `mode`, and no path is followed.
        if fchmod(descriptor, mode) != 0 { failure = errorText(errno) }
        if failure == nil {
            failure = bytes.withUnsafeBytes { writeAll($0, to: descriptor) }.map(errorText)
        }
        if close(descriptor) != 0, failure == nil { failure = errorText(errno) }
        if failure == nil, renameat(directory, temporary, directory, name) != 0 { failure = errorText(errno) }
        if failure != nil { unlinkat(directory, temporary, 0) }
        return failure
    }

    /// The folder holding `path`, as given: what precedes its last slash ("/" for one at the
    /// root), or "." when it has none.
    static func folder(of path: String) -> String {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        return slash.map { $0 == path.utf8.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// Opens a file for reading: its descriptor, or the error number.
    static func openForReading(_ path: String) -> Result<Int32, SystemError> {
        let descriptor = withFileName(path) { open($0, O_RDONLY) }
        guard let descriptor else { return .failure(ambiguousName) }
        return descriptor >= 0 ? .success(descriptor) : .failure(SystemError(errno))
    }

    /// The command-line arguments that are not UTF-8 (a file name in Latin-1, say), by the text
    /// Swift made of them (each invalid byte a U+FFFD): their bytes, or nil when two such
    /// arguments read as the same text, so that the text cannot say which is meant.
    private static let argumentBytes: [ExactText: [UInt8]?] = {
        var found: [ExactText: [UInt8]?] = [:]
        for bytes in rawArguments where String(validating: bytes, as: UTF8.self) == nil {
            let key = ExactText(String(decoding: bytes, as: UTF8.self))
            if let seen = found[key] {
                if seen != bytes { found[key] = .some(nil) }
            } else {
                found[key] = bytes
            }
        }
        return found
    }()

    /// Whether `path` is the text of two arguments that are not UTF-8 (`withFileName`).
    static func isAmbiguousFileName(_ path: String) -> Bool {
        argumentBytes[ExactText(path)].map { $0 == nil } ?? false
    }

    /// Why a file named by an argument that is not UTF-8 was not opened.
    static let ambiguousName = SystemError(
        EILSEQ, "its name is not UTF-8, and another argument's name reads the same, so which is meant is unclear")

    /// Calls `body` with the bytes of the file name `path`: the command-line argument's own
    /// bytes when it was not UTF-8 (Swift's text of it would name another file), else the
    /// text's. Nil when two such arguments read as `path`.
    static func withFileName<Value>(_ path: String, _ body: (UnsafePointer<CChar>) -> Value) -> Value? {
        guard let entry = argumentBytes[ExactText(path)] else { return path.withCString(body) }
        guard let bytes = entry else { return nil }
        return (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    static func closeDescriptor(_ descriptor: Int32) { close(descriptor) }

    /// Whether a read failed because nothing readable is there (no such file, or a directory).
    static func isMissing(_ error: SystemError) -> Bool {
        error.code == ENOENT || error.code == ENOTDIR || error.code == EISDIR
    }

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

    /// Why `readRegularFile` read nothing: there is nothing at the path (a miss, to say nothing
    /// of), or what is there is not a file to read (to say so).
    enum RegularFileFailure: Error {
        case missing
        case refused(String)

        /// In words, for a message naming the file.
        var description: String {
            switch self {
            case .missing: "no such file"
            case .refused(let reason): reason
            }
        }
    }

    /// A regular file of at most `limit` bytes, read as a file others may have placed or replaced
    /// is read (a cache entry): a symbolic link at `path` is not followed, and neither a FIFO nor
    /// a device nor anything else but a regular file is opened for its content (a FIFO would
    /// block the open or the read forever). `lstat` first, so no device is even opened; then
    /// `open(O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)`, `fstat` of that descriptor (what
    /// is read is what was checked), and at most `limit` + 1 bytes read.
    static func readRegularFile(_ path: String, limit: Int) -> Result<[UInt8], RegularFileFailure> {
        var before = stat()
        guard lstat(path, &before) == 0 else {
            return .failure(errno == ENOENT || errno == ENOTDIR ? .missing : .refused(errorText(errno)))
        }
        if let problem = notARegularFile(before) { return .failure(.refused(problem)) }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return .failure(.missing) }
            return .failure(
                .refused(errno == ELOOP ? "it is a symbolic link, which is not followed" : errorText(errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.refused(errorText(errno))) }
        if let problem = notARegularFile(info) { return .failure(.refused(problem)) }
        let tooLarge = RegularFileFailure.refused("it is over \(limit) bytes")
        guard info.st_size <= limit else { return .failure(tooLarge) }
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 14, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            switch readSome(descriptor, into: chunk) {
            case .failure(let error): return .failure(.refused(error.description))
            case .success(0): return .success(bytes)
            case .success(let count):
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                // The file grew after fstat.
                if bytes.count > limit { return .failure(tooLarge) }
            }
        }
    }

    /// Why `info` is not a regular file's, in words, or nil.
    private static func notARegularFile(_ info: stat) -> String? {
        switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: "it is a symbolic link, which is not followed"
        case S_IFIFO: "it is a FIFO (named pipe), not a regular file"
        case S_IFDIR: "it is a directory, not a regular file"
        case S_IFSOCK: "it is a socket, not a regular file"
        case S_IFCHR, S_IFBLK: "it is a device, not a regular file"
        default: "it is not a regular file"
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
        guard withFileName(path, { stat($0, &info) }) == 0 else { return nil }
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
