#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reads an input of any size as a stream of records and scans each for JWS, so
/// memory stays bounded by the largest record, not by the input.
///
/// A record is one line, or a JSON document (a line that opens with `{` or `[`,
/// continued over the following lines until its brackets close). One JWS or JSON
/// document per line (webhook logs, exports) therefore streams; a pretty-printed
/// API response is read as one document.
public struct InputStream {
    /// Appends the next bytes to the buffer; returns how many, or 0 at the end of the input
    /// (with a description when reading failed).
    public typealias Reader = (inout [UInt8]) -> (count: Int, error: String?)

    /// The largest record (line or JSON document) read whole: 64 MiB.
    public static let maximumRecordSize = 64 << 20

    private let origin: String
    private let numberLines: Bool
    private let read: Reader
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var lineNumber = 0
    private var recordCount = 0
    /// The first record's bytes, kept while it is the only one (for a lone bare token).
    private var onlyRecord: [UInt8]?
    /// Why the first JSON-looking record did not parse, for "no JWS found" messages.
    public private(set) var jsonProblem: String?
    /// Set when reading failed part-way.
    public private(set) var readError: String?

    /// - Parameters:
    ///   - origin: the input's name ("file.json", "<stdin>", "argument 1"), prefixed to every source.
    ///   - numberLines: whether text sources name the line ("file.jws:3").
    ///   - read: appends the next bytes of the input.
    public init(origin: String, numberLines: Bool = true, read: @escaping Reader) {
        self.origin = origin
        self.numberLines = numberLines
        self.read = read
    }

    /// An in-memory input.
    public init(bytes: [UInt8], origin: String, numberLines: Bool = true) {
        var remaining: [UInt8]? = bytes
        self.init(origin: origin, numberLines: numberLines) { buffer in
            guard let bytes = remaining else { return (0, nil) }
            remaining = nil
            buffer.append(contentsOf: bytes)
            return (bytes.count, nil)
        }
    }

    /// One record of the input, read but not yet scanned. Scanning is a pure function of
    /// the record (`scan()`), so it can run on any thread, in parallel with others.
    public struct Record: Sendable {
        enum Content: Sendable {
            /// A line over the record limit (not kept).
            case overLimit
            /// One line of text.
            case text([UInt8])
            /// A JSON-looking record: the bytes, and each line's number and range in them.
            case json([UInt8], lines: [(number: Int, start: Int, end: Int)], whole: Bool)
        }

        let origin: String
        let numberLines: Bool
        let number: Int
        let content: Content

        /// The JWS found in the record, and why it is not JSON when it looked like JSON.
        public func scan() -> (items: [InputScanner.Item], jsonProblem: String?) {
            let source = numberLines ? "\(origin):\(number)" : origin
            switch content {
            case .overLimit:
                return ([.malformed(source: source, reason: "line \(number) is over the \(InputStream.maximumRecordSize >> 20) MiB limit")], nil)
            case .text(let bytes):
                return (InputScanner.textTokens(bytes[...], source: source), nil)
            case .json(let record, let lines, let whole):
                do {
                    let document = try JSONValue.decode(record)
                    let prefix = whole ? "\(origin):" : numberLines ? "\(origin):\(number):" : "\(origin):"
                    return (InputScanner.jsonTokens(document, origin: prefix, path: ""), nil)
                } catch {
                    // Not JSON after all (a log line that starts with a brace): scan its lines as text.
                    let items = lines.flatMap { number, start, end in
                        InputScanner.textTokens(record[start..<end], source: numberLines ? "\(origin):\(number)" : origin)
                    }
                    return (items, JSONValue.describeFailure(error, bytes: record))
                }
            }
        }
    }

    /// The items found in the next record; nil once the input is exhausted.
    /// May return an empty array for a record without JWS.
    public mutating func next() -> [InputScanner.Item]? {
        guard let record = nextRecord() else { return nil }
        let (items, problem) = record.scan()
        noteJSONProblem(problem)
        return items
    }

    /// Records a JSON-looking record's parse problem (the first one is kept), for the
    /// "no JWS found" message; callers that scan records themselves report it here.
    public mutating func noteJSONProblem(_ problem: String?) {
        if jsonProblem == nil, let problem { jsonProblem = problem }
    }

    /// The next record, read but not scanned; nil once the input is exhausted.
    public mutating func nextRecord() -> Record? {
        guard let (line, number) = nextLine(skippingBlank: true) else { return nil }
        recordCount += 1
        guard case .some(let bytes) = line else {
            return Record(origin: origin, numberLines: true, number: number, content: .overLimit)
        }
        let first = bytes.first { !InputScanner.isWhitespace($0) }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            onlyRecord = recordCount == 1 ? bytes : nil
            return Record(origin: origin, numberLines: numberLines, number: number, content: .text(bytes))
        }
        onlyRecord = nil
        // A JSON document: continue over the following lines until its brackets close.
        var record = bytes
        var lines = [(number: number, start: bytes.startIndex, end: bytes.endIndex)]
        var depth = BracketDepth()
        depth.feed(bytes)
        while depth.isOpen, record.count <= Self.maximumRecordSize, let (next, nextNumber) = nextLine(skippingBlank: false) {
            guard case .some(let more) = next else { break }
            record.append(UInt8(ascii: "\n"))
            let start = record.endIndex
            record.append(contentsOf: more)
            lines.append((nextNumber, start, record.endIndex))
            depth.feed(more)
        }
        let whole = recordCount == 1 && number == 1 && restIsBlank()
        return Record(origin: origin, numberLines: numberLines, number: number, content: .json(record, lines: lines, whole: whole))
    }

    /// The input's single record when it had exactly one text record, for a last-chance decode.
    public var soleTextRecord: [UInt8]? { recordCount == 1 ? onlyRecord : nil }

    // MARK: Lines

    /// The next line (without its newline) and its number; the inner optional is nil for a
    /// line over the record limit, which is skipped without being held in memory.
    private mutating func nextLine(skippingBlank: Bool) -> (line: [UInt8]?, number: Int)? {
        while true {
            var scanFrom = position
            var tooLong = false
            while true {
                if let newline = Self.newline(in: buffer, from: scanFrom) {
                    lineNumber += 1
                    let line: [UInt8]? = tooLong ? nil : Array(buffer[position..<newline])
                    position = newline + 1
                    if skippingBlank, let bytes = line, bytes.allSatisfy(InputScanner.isWhitespace) { break }
                    return (line, lineNumber)
                }
                if buffer.count - position > Self.maximumRecordSize {
                    // Drop what we have of an over-long line and keep looking for its end.
                    tooLong = true
                    position = buffer.count
                }
                // fill() first drops the bytes already consumed, moving the rest to the front.
                let unscanned = buffer.count - position
                let filled = fill()
                scanFrom = position + unscanned
                if !filled {
                    guard position < buffer.count || tooLong else { return nil }
                    lineNumber += 1
                    let line: [UInt8]? = tooLong ? nil : Array(buffer[position...])
                    position = buffer.count
                    if skippingBlank, let bytes = line, bytes.allSatisfy(InputScanner.isWhitespace) { return nil }
                    return (line, lineNumber)
                }
            }
        }
    }

    /// The offset of the next newline at or after `start` (memchr: this scans every byte of the input).
    private static func newline(in buffer: [UInt8], from start: Int) -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, let found = memchr(base + start, 0x0a, bytes.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Reads more, after dropping the consumed bytes (so a reader appends to the unconsumed
    /// rest, a partial line, rather than to everything read so far); false at the end of the input.
    private mutating func fill() -> Bool {
        guard !atEnd else { return false }
        if position > 0 {
            buffer.removeSubrange(0..<position)
            position = 0
        }
        let (count, error) = read(&buffer)
        if count <= 0 {
            atEnd = true
            if let error { readError = error }
            return false
        }
        return true
    }

    /// True when nothing but whitespace remains (reads ahead without losing data).
    private mutating func restIsBlank() -> Bool {
        while true {
            if buffer[position...].contains(where: { !InputScanner.isWhitespace($0) }) { return false }
            guard fill() else { return true }
        }
    }
}

/// Tracks `{`/`[` nesting across lines, outside strings.
struct BracketDepth {
    private var depth = 0
    private var inString = false
    private var escaped = false
    private(set) var broken = false
    /// The deepest nesting seen so far.
    private(set) var deepest = 0

    var isOpen: Bool { depth > 0 && !broken }

    mutating func feed(_ bytes: [UInt8]) {
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { broken = true }
            default: break
            }
        }
    }
}
