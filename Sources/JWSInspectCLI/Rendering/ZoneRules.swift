/// A time zone's offsets from UTC, read from the system's zone data: a TZif file (RFC 8536,
/// `/usr/share/zoneinfo/Europe/Paris`) for its transitions, and the POSIX TZ rule of its footer
/// (or of `TZ`, "CET-1CEST,M3.5.0,M10.5.0/3") for moments after the last one. Everything is
/// range-checked and bounded; what cannot be read is refused, and a moment the rules cannot
/// place has no offset (it is then shown in UTC, never guessed).
struct ZoneRules: Sendable {
    /// Moments (seconds since 1970, UTC, ascending) at which `offsets[i]` begins.
    private let transitions: [Int64]
    private let offsets: [Int]
    /// The offset before the first transition.
    private let initial: Int?
    /// The rule after the last transition (or for every moment, with no transitions).
    private let rule: PosixRule?

    /// A zone file's largest size: the largest in tzdata is about 4 KB.
    static let fileLimit = 256 << 10

    /// Seconds east of UTC at `seconds` since 1970; nil when the rules cannot say.
    func offset(at seconds: Int64) -> Int? {
        guard let last = transitions.last, seconds < last || rule == nil else {
            return rule?.offset(at: seconds) ?? (transitions.isEmpty ? initial : offsets.last)
        }
        // The last transition at or before `seconds`, by binary search.
        var (low, high) = (0, transitions.count)
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initial : offsets[low - 1]
    }

    /// A fixed offset east of UTC.
    init(fixed seconds: Int) {
        transitions = []
        offsets = []
        initial = seconds
        rule = nil
    }

    /// A POSIX TZ rule alone ("EST5EDT,M3.2.0,M11.1.0"); nil when it is not one this reads.
    init?(posix text: String) {
        guard let rule = PosixRule(text) else { return nil }
        transitions = []
        offsets = []
        initial = nil
        self.rule = rule
    }

    /// Reads a TZif file's bytes; throws why they are not one.
    init(tzif bytes: [UInt8]) throws(ZoneError) {
        var reader = Reader(bytes: bytes)
        let first = try Header(&reader)
        guard first.version >= 2 else {
            // Version 1: 32-bit transitions, no footer.
            (transitions, offsets, initial) = try Self.block(&reader, first, timeSize: 4)
            rule = nil
            return
        }
        try reader.skip(first.blockSize(timeSize: 4))
        let second = try Header(&reader)
        (transitions, offsets, initial) = try Self.block(&reader, second, timeSize: 8)
        // The footer: "\n" rule "\n"; an empty rule means none.
        guard try reader.byte() == 0x0A, let end = reader.rest.firstIndex(of: 0x0A) else {
            throw ZoneError("no footer after the version 2 data")
        }
        let text = String(decoding: reader.rest[..<end], as: UTF8.self)
        if text.isEmpty {
            rule = nil
        } else if let parsed = PosixRule(text) {
            rule = parsed
        } else {
            throw ZoneError("its rule for later dates, '\(text)', is not one jwsinspect reads")
        }
    }

    private static func block(_ reader: inout Reader, _ header: Header, timeSize: Int) throws(ZoneError) -> (
        [Int64], [Int], Int?
    ) {
        guard header.leapCount == 0 else { throw ZoneError("zone files with leap seconds (right/…) are not read") }
        guard reader.remaining >= header.blockSize(timeSize: timeSize) else { throw ZoneError("it is cut short") }
        var times: [Int64] = []
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let time = timeSize == 8 ? try reader.int64() : Int64(try reader.int32())
            guard times.last.map({ $0 < time }) ?? true else { throw ZoneError("its transitions are not in order") }
            times.append(time)
        }
        var indices: [Int] = []
        for _ in 0..<header.timeCount {
            let index = Int(try reader.byte())
            guard index < header.typeCount else { throw ZoneError("a transition names a type it does not have") }
            indices.append(index)
        }
        var types: [Int] = []
        for _ in 0..<header.typeCount {
            let offset = Int(try reader.int32())
            // RFC 8536: -89999 to 93599 seconds (under a day either way, and -2^31 is not allowed).
            guard (-89_999...93_599).contains(offset) else {
                throw ZoneError("an offset of \(offset) s is out of range")
            }
            try reader.skip(2)
            types.append(offset)
        }
        try reader.skip(header.charCount + header.leapCount * (timeSize + 4) + header.stdCount + header.utCount)
        return (times, indices.map { types[$0] }, types.first)
    }

    /// A TZif header: its version and the counts of its data block.
    private struct Header {
        let version: Int
        let utCount, stdCount, leapCount, timeCount, typeCount, charCount: Int

        init(_ reader: inout Reader) throws(ZoneError) {
            guard reader.remaining >= 44, Array(reader.rest.prefix(4)) == Array("TZif".utf8) else {
                throw ZoneError("not a TZif zone file")
            }
            try reader.skip(4)
            let byte = try reader.byte()
            version = byte == 0 ? 1 : Int(byte) - 0x30
            guard (1...9).contains(version) else { throw ZoneError("an unknown TZif version") }
            try reader.skip(15)
            var counts: [Int] = []
            for _ in 0..<6 {
                let count = Int(try reader.int32())
                // Each count is bounded by the file's size, checked before anything is allocated.
                guard (0...ZoneRules.fileLimit).contains(count) else { throw ZoneError("a count of \(count)") }
                counts.append(count)
            }
            (utCount, stdCount, leapCount, timeCount, typeCount, charCount) =
                (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
            guard typeCount >= 1 else { throw ZoneError("it has no local time type") }
        }

        func blockSize(timeSize: Int) -> Int {
            timeCount * (timeSize + 1) + typeCount * 6 + charCount + leapCount * (timeSize + 4) + stdCount + utCount
        }
    }

    /// Big-endian reads over the file's bytes, every read checked against its end.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var remaining: Int { bytes.count - position }
        var rest: ArraySlice<UInt8> { bytes[position...] }

        mutating func skip(_ count: Int) throws(ZoneError) {
            guard count >= 0, count <= remaining else { throw ZoneError("it is cut short") }
            position += count
        }

        mutating func byte() throws(ZoneError) -> UInt8 {
            guard remaining >= 1 else { throw ZoneError("it is cut short") }
            position += 1
            return bytes[position - 1]
        }

        mutating func int32() throws(ZoneError) -> Int32 {
            var value: UInt32 = 0
            for _ in 0..<4 { value = value << 8 | UInt32(try byte()) }
            return Int32(bitPattern: value)
        }

        mutating func int64() throws(ZoneError) -> Int64 {
            var value: UInt64 = 0
            for _ in 0..<8 { value = value << 8 | UInt64(try byte()) }
            return Int64(bitPattern: value)
        }
    }
}

/// Why a zone's data cannot be read.
struct ZoneError: Error {
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

/// A POSIX TZ rule (POSIX.1-2017 §8.3, with RFC 8536's extensions): a standard offset, and
/// optionally a daylight-saving offset with the rules of its start and end each year. Offsets
/// in the text are west of UTC ("CET-1" is one hour east); `offset(at:)` answers east.
struct PosixRule: Sendable {
    let standard: Int
    let daylight: (offset: Int, start: Change, end: Change)?

    /// When daylight saving starts or ends: a day of the year and the local time on it.
    struct Change: Sendable {
        enum Day: Sendable {
            /// `Jn`: day 1–365, February 29 never counted.
            case julian(Int)
            /// `n`: day 0–365, February 29 counted in leap years.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday d (0 Sunday) of week w (5: the last) of month m.
            case month(Int, week: Int, weekday: Int)
        }
        let day: Day
        /// Seconds after local midnight (RFC 8536: −167 to 167 hours).
        let time: Int
    }

    init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let west = scanner.offset(hours: 0...24) else { return nil }
        standard = -west
        guard !scanner.atEnd else {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var daylightOffset = standard + 3600
        if let west = scanner.offset(hours: 0...24) { daylightOffset = -west }
        // Without rules, the daylight dates are the implementation's choice: not guessed.
        guard scanner.take(","), let start = scanner.change(), scanner.take(","), let end = scanner.change(),
            scanner.atEnd
        else { return nil }
        daylight = (daylightOffset, start, end)
    }

    /// Seconds east of UTC at `seconds` since 1970.
    func offset(at seconds: Int64) -> Int {
        guard let daylight else { return standard }
        let year = Civil.year(ofDay: Civil.floorDivide(seconds + Int64(standard), 86_400))
        // The changes of that year, as UTC moments: the start at standard time, the end at daylight time.
        let start = Civil.secondsOfDay(daylight.start.day, year: year) + Int64(daylight.start.time - standard)
        let end = Civil.secondsOfDay(daylight.end.day, year: year) + Int64(daylight.end.time - daylight.offset)
        let inDaylight = start < end ? (start <= seconds && seconds < end) : !(end <= seconds && seconds < start)
        return inDaylight ? daylight.offset : standard
    }

    /// Reads the rule's text left to right, every number range-checked.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var atEnd: Bool { position == bytes.count }

        private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func take(_ character: Character) -> Bool {
            guard let next, next == character.asciiValue else { return false }
            position += 1
            return true
        }

        /// A zone abbreviation: three or more letters, or `<…>` of letters, digits, + and -.
        mutating func name() -> Bool {
            let start = position
            if take("<") {
                while let next, next != UInt8(ascii: ">") {
                    guard next.isLetterOrDigit || next == UInt8(ascii: "+") || next == UInt8(ascii: "-") else {
                        return false
                    }
                    position += 1
                }
                return take(">") && position - start >= 5
            }
            while let next, next.isLetter { position += 1 }
            return position - start >= 3
        }

        /// `[+-]hh[:mm[:ss]]` in seconds (nil, and nothing read, when no number is there).
        mutating func offset(hours: ClosedRange<Int>) -> Int? {
            let start = position
            var sign = 1
            if take("-") { sign = -1 } else { _ = take("+") }
            guard let hour = number(digits: 1...3), hours.contains(hour) else {
                position = start
                return nil
            }
            var total = hour * 3600
            if take(":") {
                guard let minute = number(digits: 2...2), minute < 60 else { return nil }
                total += minute * 60
                if take(":") {
                    guard let second = number(digits: 2...2), second < 60 else { return nil }
                    total += second
                }
            }
            return sign * total
        }

        /// `Jn`, `n` or `Mm.w.d`, then `/time` (default 02:00).
        mutating func change() -> Change? {
            let day: Change.Day
            if take("J") {
                guard let number = number(digits: 1...3), (1...365).contains(number) else { return nil }
                day = .julian(number)
            } else if take("M") {
                guard let month = number(digits: 1...2), (1...12).contains(month), take("."),
                    let week = number(digits: 1...1), (1...5).contains(week), take("."),
                    let weekday = number(digits: 1...1), weekday <= 6
                else { return nil }
                day = .month(month, week: week, weekday: weekday)
            } else {
                guard let number = number(digits: 1...3), number <= 365 else { return nil }
                day = .zeroBased(number)
            }
            var time = 7200
            if take("/") {
                guard let given = offset(hours: 0...167) else { return nil }
                time = given
            }
            return Change(day: day, time: time)
        }

        private mutating func number(digits: ClosedRange<Int>) -> Int? {
            let start = position
            var value = 0
            while let next, next.isDigit, position - start < digits.upperBound {
                value = value * 10 + Int(next - UInt8(ascii: "0"))
                position += 1
            }
            guard digits.contains(position - start) else {
                position = start
                return nil
            }
            return value
        }
    }
}

/// Calendar arithmetic on days since 1970-01-01 (proleptic Gregorian), in integers.
enum Civil {
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int64) -> Int {
        [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days since 1970-01-01 of a date (H. Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = floorDivide(shifted, 400)
        let yearOfEra = shifted - era * 400
        let dayOfYear = Int64((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year a day since 1970 falls in.
    static func year(ofDay days: Int64) -> Int64 {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    }

    /// Seconds since 1970 of local midnight starting a rule's day in `year`.
    static func secondsOfDay(_ day: PosixRule.Change.Day, year: Int64) -> Int64 {
        let january1 = days(year: year, month: 1, day: 1)
        let dayNumber: Int64
        switch day {
        case .julian(let number):
            // February 29 is never counted: from March on, a leap year's day is one later.
            dayNumber = january1 + Int64(number - 1) + (isLeap(year) && number >= 60 ? 1 : 0)
        case .zeroBased(let number):
            dayNumber = january1 + Int64(number)
        case .month(let month, let week, let weekday):
            let first = days(year: year, month: month, day: 1)
            // 1970-01-01 was a Thursday (4).
            let firstWeekday = Int((first % 7 + 11) % 7)
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
            while dayOfMonth > daysIn(month: month, year: year) { dayOfMonth -= 7 }
            dayNumber = first + Int64(dayOfMonth - 1)
        }
        return dayNumber * 86_400
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isLetter: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
    }
    fileprivate var isLetterOrDigit: Bool { isDigit || isLetter }
}
