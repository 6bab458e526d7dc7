#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import JWSInspectCore

/// Turns command-line inputs (tokens, paths, "-") into what the scanner found in them.
enum InputReader {
    /// What one command-line input yielded.
    enum Outcome {
        /// Items found (possibly none: the caller reports "no JWS found").
        case items(origin: String, [InputScanner.Item])
        /// The input could not be read (exit 66).
        case unreadable(String)
    }

    /// The largest input read whole (256 MiB).
    static let maximumInputSize = 256 << 20

    /// Reads and scans one input.
    ///
    /// - Parameters:
    ///   - argument: a token, a file path, or "-" for standard input.
    ///   - position: 1-based position among the inputs, used to name inline tokens.
    static func read(_ argument: String, position: Int) -> Outcome {
        if argument == "-" {
            if isatty(STDIN_FILENO) == 1 {
                Console.error("reading JWS from standard input (paste, then Ctrl-D; --help for usage)")
            }
            return readDescriptor(STDIN_FILENO, origin: "<stdin>")
        }
        var info = stat()
        if stat(argument, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                return .unreadable("cannot read '\(argument)': it is a directory")
            }
            let descriptor = open(argument, O_RDONLY)
            guard descriptor >= 0 else {
                return .unreadable("cannot read '\(argument)': \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            return readDescriptor(descriptor, origin: argument)
        }
        let bytes = Array(argument.utf8)
        let origin = "argument \(position)"
        if isInlineInput(bytes) {
            return .items(origin: origin, scan(bytes, origin: origin, numberLines: bytes.contains(UInt8(ascii: "\n"))))
        }
        let reason = String(cString: strerror(errno))
        return .unreadable("cannot read '\(argument)': \(reason) (and it is not a JWS)")
    }

    /// True when an argument that names no file is meant as data: JSON, or something JWS-shaped
    /// (it opens like a JWS header, or is dot-separated base64url with at least two dots).
    private static func isInlineInput(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { !InputScanner.isWhitespace($0) }) else { return false }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return true }
        if InputScanner.looksLikeJWSHeader(bytes) { return true }
        let dots = bytes.filter { $0 == UInt8(ascii: ".") }.count
        let base64URLOrDot = bytes.allSatisfy { byte in
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        }
        return dots >= 2 && base64URLOrDot
    }

    private static func readDescriptor(_ descriptor: Int32, origin: String) -> Outcome {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .unreadable("cannot read '\(origin)': \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maximumInputSize {
                return .items(origin: origin, [.malformed(source: origin, reason: "the input is over the \(maximumInputSize >> 20) MiB limit")])
            }
        }
        return .items(origin: origin, scan(bytes, origin: origin))
    }

    /// Scans, and hands a lone dot-separated base64url word that the scanner passed over
    /// (its header does not open a JSON object) to the decoder, so it gets a precise reason.
    private static func scan(_ bytes: [UInt8], origin: String, numberLines: Bool = true) -> [InputScanner.Item] {
        let items = InputScanner.scan(bytes, origin: origin, numberLines: numberLines)
        guard items.isEmpty else { return items }
        if let first = bytes.first(where: { !InputScanner.isWhitespace($0) }),
           first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
           let problem = InputScanner.jsonProblem(bytes) {
            return [.malformed(source: origin, reason: "no JWS found, and it is not a JSON document: \(problem)")]
        }
        if let token = soleBareToken(bytes) {
            return [.token(source: origin, token: token)]
        }
        return items
    }

    /// The input's only word when it is dot-separated base64url with two dots (a JWS with a bad header).
    private static func soleBareToken(_ bytes: [UInt8]) -> String? {
        let words = bytes.split(whereSeparator: InputScanner.isWhitespace)
        guard words.count == 1, words[0].first != UInt8(ascii: "{"), words[0].first != UInt8(ascii: "["),
              isInlineInput(Array(words[0]))
        else { return nil }
        return String(decoding: words[0], as: UTF8.self)
    }
}
