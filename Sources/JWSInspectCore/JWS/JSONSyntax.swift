/// JSON syntax (RFC 8259) checked byte by byte, without building any value, and resumable:
/// the text may arrive in pieces (the lines of a stream).
///
/// Two uses, one per mode:
/// - `.strict`: a JWS header or payload is one JSON text exactly as RFC 8259 defines it.
///   Foundation's parser lets trailing commas through, and in members it is not asked to
///   decode also leading zeros, bare minus signs and unknown escapes; output shows the
///   payload as signed, so it would not be JSON. Refused too, as RFC 8259 warns they do
///   not interoperate (§6, §8.2), and because Foundation cannot decode them, which would
///   leave members out of the report: numbers beyond a double's range and unpaired
///   surrogate escapes. The one laxity kept is raw control characters inside strings:
///   Foundation (and so Apple's Swift library) accepts them, and output escapes them.
/// - `.record`: where a JSON document in a stream ends, line by line. A line that cannot
///   continue the document (it breaks the syntax, or a string runs to the end of the line,
///   which JSON never allows) ends it, so a truncated log line cannot swallow the lines
///   after it. Lenient where Foundation is (trailing commas, any escape, loose numbers):
///   Foundation has the last word on the document.
///
/// Either mode can also refuse an object that names a member twice (`MemberNames`; on by
/// default in `.strict`): the first such member is `duplicate`, and the text is `.broken`.
///
/// Linear in the input; its memory is one bit per nesting level, and, when members are
/// checked, the names of the objects open.
struct JSONSyntax {
    enum Mode { case strict, record }

    /// Where the text stands after what was fed.
    enum Outcome: Equatable {
        /// A prefix of a JSON text: more may come.
        case open
        /// One whole value was read. In `.record` mode nothing after it is looked at; in
        /// `.strict` mode only whitespace may follow.
        case complete
        /// Not JSON: `problem` says why and where.
        case broken
    }

    let mode: Mode
    var outcome = Outcome.open
    /// Why the text is not JSON, naming the byte offset (set when `outcome` is `.broken`).
    var problem: String?
    /// Bytes fed so far (line ends count as one).
    var offset = 0
    /// The deepest nesting of objects and arrays seen.
    private(set) var deepest = 0
    /// Whether a string held a raw control character (U+0000 to U+001F), which JSON text
    /// should escape: Foundation refuses them when it decodes the string.
    private(set) var rawControlCharacters = false
    /// The first member named twice in one object (set with `outcome` `.broken`).
    private(set) var duplicate: DuplicateMember?
    /// Whether the text was refused for its member names' cost (one too long, or all of them
    /// together): `problem` says why; nothing should decode it.
    private(set) var refusedForNames = false
    /// The bytes of the member names that are not ASCII, so far.
    private var nonASCIINameBytes = 0

    var state = State.value
    /// One bit per open container: set for an object, clear for an array.
    private var containers: [UInt64] = []
    private var depth = 0
    /// Progress inside a number (a `NumberStep`), a literal or a `\u` escape.
    var step: UInt8 = 0
    /// Which of `literals` is being read.
    private var literal = 0
    /// Whether the string being read is an object's key.
    private var inKey = false
    /// The `\u` escape being read, and whether a high surrogate must be followed by a low one.
    var codeUnit: UInt16 = 0
    var expectLowSurrogate = false
    /// Where the number being read started in the piece being fed, and whether it has an exponent.
    var numberStart = 0
    var numberHasExponent = false
    /// Whether an object naming a member twice breaks the text, and the names of the open
    /// objects' members then.
    private let checksMembers: Bool
    private var members = MemberNames()
    /// The key being read: where its text starts in the piece being fed (0 once it runs on
    /// into a later piece), its opening quote's offset in the text, whether it holds an
    /// escape, and its bytes from earlier pieces.
    private var keyStart = 0
    private var keyOffset = 0
    private var keyEscaped = false
    private var keyPrefix: [UInt8] = []

    enum State: UInt8 {
        case value, valueOrClose, keyOrClose, key, colon, afterValue
        case string, escape, unicode, number, literal
        case done
    }

    /// - Parameter members: whether an object naming a member twice breaks the text (by
    ///   default in `.strict` mode only).
    init(mode: Mode, members: Bool? = nil) {
        self.mode = mode
        checksMembers = members ?? (mode == .strict)
    }

    /// Reads more of the text.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard outcome == .open || (outcome == .complete && mode == .strict), let base = bytes.baseAddress else {
            return
        }
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = base[index]
            switch state {
            case .string:
                if expectLowSurrogate, byte != 0x5C { return fail("an unpaired surrogate escape", at: index) }
                // Most bytes of a document are inside strings (tokens, certificates): skip runs,
                // eight bytes at a time while none of them is a quote, a backslash or a control.
                while index + 8 <= count,
                    !Self.mayEndString(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                }
                while index < count {
                    let next = base[index]
                    if next == 0x22 || next == 0x5C { break }
                    if next < 0x20 { rawControlCharacters = true }
                    index += 1
                }
                guard index < count else { continue }
                if base[index] == 0x22 {
                    if inKey {
                        if checksMembers, !endKey(base, at: index) { return }
                        state = .colon
                    } else {
                        valueEnded()
                    }
                } else {
                    if inKey { keyEscaped = true }
                    state = .escape
                }
            case .escape:
                if expectLowSurrogate, byte != 0x75 { return fail("an unpaired surrogate escape", at: index) }
                switch byte {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:  // " \ / b f n r t
                    state = .string
                case 0x75:  // u
                    state = .unicode
                    step = 0
                    codeUnit = 0
                default:
                    guard mode == .record else { return fail("an unknown escape '\\\(Self.shown(byte))'", at: index) }
                    state = .string
                }
            case .unicode:
                guard let digit = Self.hexValue(byte) else {
                    return fail("a \\u escape without four hexadecimal digits", at: index)
                }
                codeUnit = codeUnit << 4 | UInt16(digit)
                step += 1
                if step == 4 {
                    state = .string
                    if mode == .strict, let problem = surrogateProblem() { return fail(problem, at: index) }
                }
            case .number:
                // The digits of an integer (dates, prices, IDs) without a step each.
                if step == NumberStep.integer.rawValue, byte &- 0x30 < 10 {
                    index += 1
                    while index < count, base[index] &- 0x30 < 10 { index += 1 }
                    continue
                }
                switch numberStep(byte) {
                case .inside:
                    break
                case .malformed:
                    return fail("a malformed number", at: index)
                case .ended:
                    // The byte follows the number: read it again as what comes after a value.
                    if mode == .strict, let problem = rangeProblem(base, end: index) {
                        return fail(problem, atAbsolute: offset + numberStart)
                    }
                    valueEnded()
                    continue
                }
            case .literal:
                let word = Self.literals[literal]
                guard byte == word[Int(step)] else {
                    return fail("an unknown word (expected \(String(decoding: word, as: UTF8.self)))", at: index)
                }
                step += 1
                if Int(step) == word.count { valueEnded() }
            case .done:
                guard mode == .strict else { return advance(by: index) }
                guard Self.isWhitespace(byte) else {
                    return fail("'\(Self.shown(byte))' after the end of the JSON value", at: index)
                }
            case .value, .valueOrClose, .keyOrClose, .key, .colon, .afterValue:
                if !Self.isWhitespace(byte) {
                    if let failure = structural(byte) { return fail(failure, at: index) }
                    if state == .number {
                        numberStart = index
                    } else if state == .string, inKey, checksMembers {
                        keyStart = index + 1
                        keyOffset = offset + index
                        keyEscaped = false
                    }
                }
            }
            index += 1
        }
        if checksMembers {
            if inKey, state == .string || state == .escape || state == .unicode {
                // The key runs on into the next piece.
                keyPrefix.append(contentsOf: UnsafeBufferPointer(start: base + keyStart, count: count - keyStart))
                keyStart = 0
            }
            members.keepNames(of: base, at: offset)
        }
        advance(by: count)
    }

    /// A key ended at `end` (its closing quote) in the piece at `base`: false, with the text
    /// broken, when its object has a member of that name already.
    private mutating func endKey(_ base: UnsafePointer<UInt8>, at end: Int) -> Bool {
        let piece = UnsafeBufferPointer(start: base + keyStart, count: end - keyStart)
        guard keyEscaped || !keyPrefix.isEmpty else {
            guard withinNameCost(piece) else { return false }
            if members.add(piece, textStart: offset + keyStart, piece: base, pieceOffset: offset) {
                return true
            }
            return duplicateKey(piece)
        }
        keyPrefix.append(contentsOf: piece)
        let name = keyEscaped ? MemberNames.unescape(keyPrefix) : keyPrefix
        keyPrefix.removeAll(keepingCapacity: true)
        return name.withUnsafeBufferPointer { name in
            guard withinNameCost(name) else { return false }
            if members.add(name, textStart: nil, piece: base, pieceOffset: offset) { return true }
            return duplicateKey(name)
        }
    }

    /// Whether a member name is within what names that are not ASCII may cost (comparing them
    /// as Swift strings costs more than linear time): each at most `MemberNames.nonASCIILimit`
    /// bytes, all of them at most `MemberNames.nonASCIITotalLimit`. Otherwise the text is
    /// refused (`refusedForNames`). An ASCII name costs nothing here but one scan.
    private mutating func withinNameCost(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard MemberNames.isNotASCII(name) else { return true }
        nonASCIINameBytes += name.count
        let reason: String
        if name.count > MemberNames.nonASCIILimit {
            reason =
                "a member name of \(name.count) bytes that is not ASCII, over the \(MemberNames.nonASCIILimit) "
                + "bytes such a name may have"
        } else if nonASCIINameBytes > MemberNames.nonASCIITotalLimit {
            reason =
                "member names that are not ASCII of \(nonASCIINameBytes) bytes in all, over the "
                + "\(MemberNames.nonASCIITotalLimit) bytes such names may have in one text"
        } else {
            return true
        }
        refusedForNames = true
        fail(reason, atAbsolute: keyOffset)
        return false
    }

    private mutating func duplicateKey(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let found = DuplicateMember(name: String(decoding: name, as: UTF8.self), offset: keyOffset)
        duplicate = found
        fail("a second member named \(found.quotedName)", atAbsolute: keyOffset)
        return false
    }

    /// In `.record` mode, a line ended here. A string cannot span lines; anywhere else a line
    /// break is whitespace.
    mutating func endLine() {
        guard outcome == .open else { return }
        switch state {
        case .string, .escape, .unicode:
            fail("a string runs to the end of the line", atAbsolute: offset)
            return
        case .number:
            valueEnded()
        case .literal:
            fail("an unknown word at the end of the line", atAbsolute: offset)
            return
        default:
            break
        }
        offset += 1
    }

    /// The input ended: nil when it held one complete JSON text, else why not.
    mutating func finish() -> String? {
        if outcome == .open, state == .number {
            if mode == .strict, !numberCanEnd { fail("an incomplete number", atAbsolute: offset) } else { valueEnded() }
        }
        switch outcome {
        case .complete: return nil
        case .broken: return problem
        case .open: return depth == 0 && state == .value ? "no JSON value" : "the text ends inside a value (truncated)"
        }
    }

    // MARK: Structure

    /// A byte other than whitespace where a structural token or a value is expected: nil
    /// when it may stand there (and the state moves on), else why not.
    @inline(__always)
    private mutating func structural(_ byte: UInt8) -> String? {
        switch state {
        case .colon:
            guard byte == 0x3A else { return "expected ':' after an object's key, found '\(Self.shown(byte))'" }
            state = .value
        case .afterValue:
            switch byte {
            case 0x2C:  // ,
                state = isObject ? .key : .value
            case 0x7D, 0x5D:  // } ]
                return close(byte)
            default:
                return "expected ',' or a closing bracket, found '\(Self.shown(byte))'"
            }
        case .keyOrClose, .key:
            if byte == 0x22 {
                state = .string
                inKey = true
            } else if byte == 0x7D {
                guard state == .keyOrClose || mode == .record else { return "a trailing comma before '}'" }
                return close(byte)
            } else {
                return "expected a string key, found '\(Self.shown(byte))'"
            }
        case .value, .valueOrClose:
            if byte == 0x5D, depth > 0, !isObject {
                guard state == .valueOrClose || mode == .record else { return "a trailing comma before ']'" }
                return close(byte)
            }
            return beginValue(byte)
        default:
            break
        }
        return nil
    }

    @inline(__always)
    private mutating func beginValue(_ byte: UInt8) -> String? {
        switch byte {
        case 0x7B:  // {
            push(object: true)
            state = .keyOrClose
        case 0x5B:  // [
            push(object: false)
            state = .valueOrClose
        case 0x22:
            state = .string
            inKey = false
        case 0x2D, 0x30...0x39:  // - 0-9
            state = .number
            step = NumberStep.start.rawValue
            numberHasExponent = false
            _ = numberStep(byte)
        case 0x74, 0x66, 0x6E:  // t f n
            state = .literal
            literal = byte == 0x74 ? 0 : byte == 0x66 ? 1 : 2
            step = 1
        default:
            return "expected a value, found '\(Self.shown(byte))'"
        }
        return nil
    }

    private static let literals: [[UInt8]] = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]

    @inline(__always)
    private var isObject: Bool {
        let level = depth - 1
        return containers[level >> 6] & (1 << UInt64(level & 63)) != 0
    }

    @inline(__always)
    private mutating func push(object: Bool) {
        let level = depth
        if level >> 6 == containers.count { containers.append(0) }
        let bit: UInt64 = 1 << UInt64(level & 63)
        if object {
            containers[level >> 6] |= bit
            if checksMembers { members.open() }
        } else {
            containers[level >> 6] &= ~bit
        }
        depth += 1
        deepest = max(deepest, depth)
    }

    @inline(__always)
    private mutating func close(_ byte: UInt8) -> String? {
        guard depth > 0 else { return "'\(Self.shown(byte))' closes nothing" }
        guard isObject == (byte == 0x7D) else {
            return "'\(Self.shown(byte))' closes \(isObject ? "an object" : "an array")"
        }
        if byte == 0x7D, checksMembers { members.close() }
        depth -= 1
        valueEnded()
        return nil
    }

    /// A value just ended: at the top level, the text is complete.
    @inline(__always)
    private mutating func valueEnded() {
        if depth == 0 {
            state = .done
            outcome = .complete
        } else {
            state = .afterValue
        }
    }
}
