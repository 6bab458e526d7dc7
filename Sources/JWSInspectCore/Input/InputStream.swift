#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Reads an input of any size as a stream of records and scans each for JWS, so
/// memory stays bounded by the largest record, not by the input.
///
/// A record is one line, or a JSON document: a line that opens with `{` or `[`, continued
/// over the following lines while they continue its syntax and it is not closed. A line
/// that cannot continue it (a truncated log line's successor) starts the next record. One
/// JWS or JSON document per line (webhook logs, exports) therefore streams; a
/// pretty-printed API response is read as one document.
///
/// Every step is linear in the input, and nothing larger than a record is ever held: a line
/// over the record limit is dropped as it is read, a document over it is refused whole and
/// read to its end without being kept, and either becomes a refusal that names the limit.
package struct InputStream {
    /// Appends the next bytes to the buffer; returns how many, or 0 at the end of the input
    /// (with a description when reading failed).
    package typealias Reader = (inout [UInt8]) -> (count: Int, error: String?)

    /// The largest record (a line, or a JSON document with the newlines between its lines) read
    /// whole: 64 MiB. One byte more is refused.
    package static let maximumRecordSize = 64 << 20

    let origin: String
    let numberLines: Bool
    private let read: Reader
    /// For a live input (a pipe, a terminal): whether the next read would wait. Nothing is
    /// read ahead then, so that a record is handed over as soon as it is complete.
    private let wouldWait: (() -> Bool)?
    /// `maximumRecordSize`, or less (tests and the fuzzer reach the limit with small inputs).
    let limit: Int
    var buffer: [UInt8] = []
    var position = 0
    private var atEnd = false
    private var lineNumber = 0
    private var recordCount = 0
    /// A line read and given back: it could not continue the JSON document before it, or it
    /// was read ahead to learn whether anything follows the first document. Its range stays
    /// valid because the buffer is not touched until it is taken again.
    var pending: Line?
    /// The first record's bytes, kept while it is the only one (for a lone bare token).
    private var onlyRecord: [UInt8]?
    /// Why the first JSON-looking record did not parse, for "no JWS found" messages.
    package private(set) var jsonProblem: String?
    /// Set when reading failed part-way.
    package private(set) var readError: String?
    /// The most bytes the read buffer held at once: at most the record limit and one read.
    package private(set) var peakBufferedBytes = 0
    /// The input's first bytes (up to `openingSize`), to recognise what it is when no JWS is
    /// found in it (a legacy receipt, say).
    package private(set) var opening: [UInt8] = []
    package static let openingSize = 64

    /// - Parameters:
    ///   - origin: the input's name ("file.json", "<stdin>", "argument 1"), prefixed to every source.
    ///   - numberLines: whether text sources name the line ("file.jws:3").
    ///   - recordLimit: the largest record read whole (`maximumRecordSize` unless testing).
    ///   - wouldWait: for a live input, whether the next read would wait for more.
    ///   - firstLine: the number of its first line: a block of a larger stream (GNU parallel
    ///     `--pipe`) names its lines as that stream's; 1 unless asked.
    ///   - read: appends the next bytes of the input.
    package init(
        origin: String, numberLines: Bool = true, recordLimit: Int = maximumRecordSize, wouldWait: (() -> Bool)? = nil,
        firstLine: Int = 1, read: @escaping Reader
    ) {
        self.lineNumber = max(firstLine, 1) - 1
        self.origin = origin
        self.numberLines = numberLines
        self.limit = max(1, min(recordLimit, Self.maximumRecordSize))
        self.wouldWait = wouldWait
        self.read = read
    }

    /// An in-memory input.
    package init(bytes: [UInt8], origin: String, numberLines: Bool = true, recordLimit: Int = maximumRecordSize) {
        var remaining: [UInt8]? = bytes
        self.init(origin: origin, numberLines: numberLines, recordLimit: recordLimit) { buffer in
            guard let bytes = remaining else { return (0, nil) }
            remaining = nil
            buffer.append(contentsOf: bytes)
            return (bytes.count, nil)
        }
    }

    /// The items found in the next record; nil once the input is exhausted.
    /// May return an empty array for a record without JWS.
    package mutating func next() -> [InputScanner.Item]? {
        guard let record = nextRecord() else { return nil }
        let (items, problem) = record.scan()
        noteJSONProblem(problem)
        return items
    }

    /// Records a JSON-looking record's parse problem (the first one is kept), for the
    /// "no JWS found" message; callers that scan records themselves report it here.
    package mutating func noteJSONProblem(_ problem: String?) {
        if jsonProblem == nil, let problem { jsonProblem = problem }
    }

    /// The next record, read but not scanned; nil once the input is exhausted.
    package mutating func nextRecord() -> Record? {
        if recordCount == 0, let receipt = binaryReceipt() {
            recordCount += 1
            return receipt
        }
        guard let line = nextLine(skippingBlank: true) else { return nil }
        recordCount += 1
        guard let range = line.range else {
            return Record(
                origin: origin, numberLines: true, number: line.number, content: .overLimit(line.length), limit: limit)
        }
        let first = buffer[range].first { !InputScanner.isWhitespace($0) }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            if first == UInt8(ascii: "M"), LegacyReceipt.looksLike(buffer[range]) {
                onlyRecord = nil
                return receiptText(Array(buffer[range]), number: line.number)
            }
            if TransactionReceiptText.recognise(buffer[range]) != nil {
                onlyRecord = nil
                return transactionReceiptText(Array(buffer[range]), number: line.number)
            }
            let bytes = joiningWrappedLines(Array(buffer[range]))
            onlyRecord = recordCount == 1 ? bytes : nil
            return Record(
                origin: origin, numberLines: numberLines, number: line.number, content: .text(bytes), limit: limit)
        }
        onlyRecord = nil
        // A JSON document: continued over the following lines while they continue its syntax.
        var syntax = JSONSyntax(mode: .record)
        buffer.withUnsafeBufferPointer { syntax.feed(UnsafeBufferPointer(rebasing: $0[range])) }
        syntax.endLine()
        var record = Array(buffer[range])
        var lines = [(number: line.number, start: 0, end: record.count)]
        var size = record.count
        var lastLine = line.number
        var overLimit = false
        while syntax.outcome == .open, let next = nextLine(skippingBlank: false, dropped: { syntax.feed($0) }) {
            if let range = next.range {
                buffer.withUnsafeBufferPointer { syntax.feed(UnsafeBufferPointer(rebasing: $0[range])) }
                syntax.endLine()
                if syntax.outcome == .broken {
                    // It cannot continue the document: it starts the next record.
                    pending = next
                    break
                }
            } else {
                syntax.endLine()  // over the limit: its bytes went through `syntax` as they were dropped
            }
            lastLine = next.number
            size += 1 + next.length
            if !overLimit, size > limit {
                overLimit = true
                record = []
                lines = []
            }
            if !overLimit, let range = next.range {
                record.append(UInt8(ascii: "\n"))
                let start = record.endIndex
                record.append(contentsOf: buffer[range])
                lines.append((next.number, start, record.endIndex))
            }
        }
        if overLimit {
            return Record(
                origin: origin, numberLines: true, number: line.number, content: .documentOverLimit(lastLine: lastLine),
                limit: limit)
        }
        let whole = recordCount == 1 && line.number == 1 && nothingFollows()
        return Record(
            origin: origin, numberLines: numberLines, number: line.number,
            content: .json(record, lines: lines, whole: whole),
            limit: limit)
    }

    /// A text line, and after it the lines that continue a token it ends with, when that token is
    /// wrapped (at 76 columns, or by a terminal): each following line that holds nothing but
    /// token characters, and is not a token by itself, is joined while the token is shorter
    /// than a whole ES256 JWS. The scanner joins the pieces only if they make one JWS. A live
    /// input is not waited for. A line that ends in a whole signature (every line of tokens
    /// does) is taken as it is, after a look at its last 87 bytes.
    private mutating func joiningWrappedLines(_ line: [UInt8]) -> [UInt8] {
        var progress = WrappedToken.Progress()
        let wrapped = line.withUnsafeBufferPointer { line in
            guard !WrappedToken.endsInSignature(line), let run = WrappedToken.lastRun(line),
                InputScanner.looksLikeJWSHeader(run)
            else { return false }
            progress.add(run)
            return progress.isIncomplete
        }
        guard wrapped else { return line }
        var record = line
        while progress.isIncomplete {
            if liveInputWouldWait { break }
            guard let next = nextLine(skippingBlank: true) else { break }
            let joined =
                next.range.map { range in
                    buffer.withUnsafeBufferPointer { bytes -> Bool in
                        // A line that starts a receipt in base64 is its own record (see `nextRecord`),
                        // never a token's piece, though standard base64 may be all token characters.
                        guard record.count + 1 + next.length <= limit,
                            let piece = WrappedToken.soleRun(UnsafeBufferPointer(rebasing: bytes[range])),
                            !WrappedToken.isTokenByItself(piece),
                            piece.first != UInt8(ascii: "M") || !LegacyReceipt.looksLike(piece),
                            TransactionReceiptText.recognise(piece) == nil
                        else { return false }
                        progress.add(piece)
                        record.append(UInt8(ascii: "\n"))
                        record.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
                        return true
                    }
                } ?? false
            if !joined {
                pending = next
                break
            }
        }
        return record
    }

    /// "64 MiB", "64 KiB" or "100 bytes", as messages name a limit.
    package static func describe(size: Int) -> String {
        if size >= 1 << 20, size % (1 << 20) == 0 { return "\(size >> 20) MiB" }
        if size >= 1 << 10, size % (1 << 10) == 0 { return "\(size >> 10) KiB" }
        return "\(size)-byte"
    }

    /// The input's single record when it had exactly one text record, for a last-chance decode.
    package var soleTextRecord: [UInt8]? { recordCount == 1 ? onlyRecord : nil }

    // MARK: Lines

    /// A line in the buffer, without its newline.
    struct Line {
        let number: Int
        /// Where its bytes are in the buffer (until the buffer is next filled); nil for a line
        /// over the record limit, whose bytes were dropped as they were read.
        let range: Range<Int>?
        /// Its length in bytes.
        let length: Int
    }

    /// The next line; nil at the end of the input.
    ///
    /// - Parameters:
    ///   - skippingBlank: skip lines of whitespace (they are counted, never copied).
    ///   - dropped: sees the bytes of a line over the record limit as they are dropped.
    mutating func nextLine(skippingBlank: Bool, dropped: ((UnsafeBufferPointer<UInt8>) -> Void)? = nil) -> Line? {
        if let line = pending {
            pending = nil
            return line
        }
        var scanFrom = position
        // Bytes of the current line already dropped (it is over the limit).
        var droppedLength = 0
        while true {
            let newline = Self.newline(in: buffer, from: scanFrom)
            if newline == nil {
                if droppedLength + buffer.count - position > limit {
                    // Over the limit, and no end in sight: drop what is held, keep looking for the end.
                    drop(position..<buffer.count, into: dropped)
                    droppedLength += buffer.count - position
                    position = buffer.count
                }
                let unscanned = buffer.count - position
                if fill() {
                    scanFrom = position + unscanned
                    continue
                }
                // The input ended; a last line may lack its newline.
                guard position < buffer.count || droppedLength > 0 else { return nil }
            }
            let end = newline ?? buffer.count
            let start = position
            position = newline.map { $0 + 1 } ?? buffer.count
            lineNumber += 1
            let length = droppedLength + end - start
            if length > limit {
                drop(start..<end, into: dropped)
                return Line(number: lineNumber, range: nil, length: length)
            }
            if skippingBlank, buffer[start..<end].allSatisfy(InputScanner.isWhitespace) {
                guard newline != nil else { return nil }
                scanFrom = position
                continue
            }
            return Line(number: lineNumber, range: start..<end, length: length)
        }
    }

    private func drop(_ range: Range<Int>, into dropped: ((UnsafeBufferPointer<UInt8>) -> Void)?) {
        guard let dropped, !range.isEmpty else { return }
        buffer.withUnsafeBufferPointer { dropped(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// A live input with no whole line buffered, whose next read would wait: nothing is read
    /// ahead of it.
    var liveInputWouldWait: Bool {
        guard let wouldWait else { return false }
        return Self.newline(in: buffer, from: position) == nil && wouldWait()
    }

    /// True when no other record follows (reads ahead one line, which it gives back). A live
    /// input that has nothing more yet is not waited for: something may follow.
    private mutating func nothingFollows() -> Bool {
        if pending != nil { return false }
        if liveInputWouldWait { return false }
        guard let next = nextLine(skippingBlank: true) else { return true }
        pending = next
        return false
    }

    /// The offset of the next newline at or after `start` (memchr: this scans every byte of the input).
    private static func newline(in buffer: [UInt8], from start: Int) -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, let found = memchr(base + start, 0x0a, bytes.count - start) else {
                return nil
            }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Reads more, after dropping the consumed bytes (so a reader appends to the unconsumed
    /// rest, a partial line, rather than to everything read so far); false at the end of the input.
    mutating func fill() -> Bool {
        guard !atEnd else { return false }
        if position > 0 {
            buffer.removeSubrange(0..<position)
            position = 0
        }
        let (count, error) = read(&buffer)
        peakBufferedBytes = max(peakBufferedBytes, buffer.count)
        if opening.count < Self.openingSize, count > 0 {
            opening += buffer[(buffer.count - count)...].prefix(Self.openingSize - opening.count)
        }
        if count <= 0 {
            atEnd = true
            if let error { readError = error }
            return false
        }
        return true
    }
}
