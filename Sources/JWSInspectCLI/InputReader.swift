#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import JWSInspectCore

/// Turns command-line inputs (tokens, paths, "-") into streams of what the scanner finds.
enum InputReader {
    /// One command-line input, opened.
    enum Opened {
        /// Items come from the stream, record by record.
        case stream(origin: String, InputStream)
        /// The input cannot be read (exit 66).
        case unreadable(String)
    }

    /// Bytes read from a file or stdin at a time.
    static let chunkSize = 1 << 20

    /// Opens one input.
    ///
    /// - Parameters:
    ///   - argument: a token, a file path, or "-" for standard input.
    ///   - position: 1-based position among the inputs, used to name inline tokens.
    ///   - io: standard input (nil when closed, `<&-`), the record limit, and where hints go.
    static func open(_ argument: String, position: Int, io: CommandIO) -> Opened {
        if argument == "-" {
            guard let standardInput = io.standardInput else {
                return .unreadable("cannot read standard input: it is closed (\(String(cString: strerror(EBADF))))")
            }
            if io.standardInputIsTerminal {
                io.error("reading JWS from standard input (paste, then Ctrl-D; --help for usage)")
            }
            return .stream(origin: "<stdin>", InputStream(origin: "<stdin>", recordLimit: io.recordLimit, read: standardInput))
        }
        var info = stat()
        if stat(argument, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                return .unreadable("cannot read '\(argument)': it is a directory")
            }
            let descriptor = Glibc.open(argument, O_RDONLY)
            guard descriptor >= 0 else {
                return .unreadable("cannot read '\(argument)': \(String(cString: strerror(errno)))")
            }
            return .stream(origin: argument, InputStream(origin: argument, recordLimit: io.recordLimit,
                                                         read: reader(descriptor: descriptor, origin: argument, closeAtEnd: true)))
        }
        let bytes = Array(argument.utf8)
        let origin = "argument \(position)"
        if isInlineInput(bytes) {
            return .stream(origin: origin, InputStream(bytes: bytes, origin: origin, numberLines: bytes.contains(UInt8(ascii: "\n")),
                                                       recordLimit: io.recordLimit))
        }
        let reason = String(cString: strerror(errno))
        return .unreadable("cannot read '\(argument)': \(reason) (and it is not a JWS)")
    }

    /// What to report for an input in which the scanner found nothing.
    static func nothingFound(in stream: InputStream, origin: String) -> InputScanner.Item {
        if let record = stream.soleTextRecord, let token = soleBareToken(record) {
            // Dot-separated base64url that the scanner passed over: decode it for a precise reason.
            return .token(source: origin, token: token)
        }
        if let problem = stream.jsonProblem {
            return .malformed(source: origin, reason: "no JWS found, and it is not a JSON document: \(problem)")
        }
        return .malformed(source: origin, reason: "no JWS found (expected a compact JWS header.payload.signature, "
            + "a JSON document holding one, or lines of them)")
    }

    /// Reads a descriptor a chunk at a time (closing it at the end when asked). The chunk is
    /// allocated on the first read and freed at the end of the input, or with the reader when
    /// it is never read to the end (standard input when only files are given).
    static func reader(descriptor: Int32, origin: String, closeAtEnd: Bool) -> InputStream.Reader {
        let state = DescriptorReader(descriptor: descriptor, origin: origin, closeAtEnd: closeAtEnd)
        return { state.read(into: &$0) }
    }

    private final class DescriptorReader {
        let descriptor: Int32
        let origin: String
        let closeAtEnd: Bool
        private var chunk: UnsafeMutableRawBufferPointer?
        private var closed = false

        init(descriptor: Int32, origin: String, closeAtEnd: Bool) {
            self.descriptor = descriptor
            self.origin = origin
            self.closeAtEnd = closeAtEnd
        }

        deinit {
            chunk?.deallocate()
        }

        func read(into buffer: inout [UInt8]) -> (count: Int, error: String?) {
            guard !closed else { return (0, nil) }
            let chunk = self.chunk ?? UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
            self.chunk = chunk
            while true {
                let count = Glibc.read(descriptor, chunk.baseAddress, chunkSize)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    let error = count < 0 ? "cannot read '\(origin)': \(String(cString: strerror(errno)))" : nil
                    if closeAtEnd { close(descriptor) }
                    chunk.deallocate()
                    self.chunk = nil
                    closed = true
                    return (0, error)
                }
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                return (count, nil)
            }
        }
    }

    /// True when an argument that names no file is meant as data: JSON, or something JWS-shaped
    /// (it opens like a JWS header, or is dot-separated base64url with at least two dots).
    private static func isInlineInput(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { !InputScanner.isWhitespace($0) }) else { return false }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return true }
        if InputScanner.looksLikeJWSHeader(bytes) { return true }
        return isDottedBase64URL(bytes)
    }

    private static func isDottedBase64URL(_ bytes: [UInt8]) -> Bool {
        let dots = bytes.filter { $0 == UInt8(ascii: ".") }.count
        let base64URLOrDot = bytes.allSatisfy { byte in
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        }
        return dots >= 2 && base64URLOrDot
    }

    /// The record's only word when it is dot-separated base64url with two dots (a JWS with a bad header).
    private static func soleBareToken(_ bytes: [UInt8]) -> String? {
        let words = bytes.split(whereSeparator: InputScanner.isWhitespace)
        guard words.count == 1, isDottedBase64URL(Array(words[0])) else { return nil }
        return String(decoding: words[0], as: UTF8.self)
    }
}
