internal import FoundationEssentials
#if canImport(Glibc)
internal import Glibc
#endif
internal import JWSInspectCore

/// The command line, parsed.
struct Options {
    enum Format: String, CaseIterable {
        case table, json, jsonl
    }

    var format: Format = .table
    var quiet = false
    var showHelp = false
    var showVersion = false
    var color: Bool?
    var timePolicy: VerificationOptions.TimePolicy = .signingTime
    var rootFiles: [String] = []
    var bundleId: String?
    var appAppleId: Int64?
    var environment: Environment?
    var kind: PayloadKind?
    var accountToken: UUID?
    var deviceID: UUID?
    var requireActive = false
    /// Verification threads; by default one per core.
    var jobs = Options.defaultJobs
    var summary = false
    var verify = true
    var strictX509 = false
    /// Inputs: tokens, file paths, or "-" for stdin; empty means stdin.
    var inputs: [String] = []

    /// A command line that cannot be run; the message is shown with the usage line (exit 64).
    struct UsageError: Error {
        let message: String
    }

    /// The number of online processors.
    static var defaultJobs: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Parses arguments (without the program name).
    ///
    /// Accepts `--flag value` and `--flag=value`; `--` ends options.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var index = 0
        var onlyInputs = false

        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyInputs || argument == "-" || !argument.hasPrefix("-") {
                options.inputs.append(argument)
                continue
            }
            if argument == "--" {
                onlyInputs = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
                index += 1
                return arguments[index - 1]
            }
            func noValue() throws(UsageError) {
                if inlineValue != nil { throw UsageError(message: "\(name) takes no value") }
            }

            switch name {
            case "-h", "--help":
                try noValue()
                options.showHelp = true
            case "--version":
                try noValue()
                options.showVersion = true
            case "-q", "--quiet":
                try noValue()
                options.quiet = true
            case "--json":
                try noValue()
                options.format = .json
            case "--format":
                let text = try value()
                guard let format = Format(rawValue: text) else {
                    throw UsageError(message: "--format must be table, json or jsonl, not '\(text)'")
                }
                options.format = format
            case "--color":
                try noValue()
                options.color = true
            case "--no-color":
                try noValue()
                options.color = false
            case "--at":
                options.timePolicy = try parseTime(try value())
            case "--root":
                options.rootFiles.append(try value())
            case "--bundle-id":
                let text = try value()
                guard !text.isEmpty else { throw UsageError(message: "--bundle-id needs a non-empty bundle ID") }
                options.bundleId = text
            case "--app-apple-id":
                let text = try value()
                guard let number = Int64(text), number >= 0 else {
                    throw UsageError(message: "--app-apple-id must be a whole number, not '\(text)'")
                }
                options.appAppleId = number
            case "--environment":
                let text = try value()
                guard let environment = Environment.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                    let names = Environment.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(message: "--environment must be one of \(names), not '\(text)'")
                }
                options.environment = environment
            case "--type":
                let text = try value()
                guard let kind = PayloadKind(rawValue: text), kind != .unknown else {
                    let names = PayloadKind.allCases.filter { $0 != .unknown }.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(message: "--type must be one of \(names), not '\(text)'")
                }
                options.kind = kind
            case "--account-token", "--device-id":
                let text = try value()
                guard let uuid = UUID(uuidString: text) else {
                    throw UsageError(message: "\(name) must be a UUID such as 7e3fb20b-4cdb-47cc-936d-99d65f608138, not '\(text)'")
                }
                if name == "--account-token" { options.accountToken = uuid } else { options.deviceID = uuid }
            case "--require-active":
                try noValue()
                options.requireActive = true
            case "-j", "--jobs":
                let text = try value()
                guard let count = Int(text), (1...256).contains(count) else {
                    throw UsageError(message: "--jobs must be a whole number from 1 to 256, not '\(text)'")
                }
                options.jobs = count
            case "--summary":
                try noValue()
                options.summary = true
            case "--no-verify":
                try noValue()
                options.verify = false
            case "--x509-strict":
                try noValue()
                options.strictX509 = true
            default:
                throw UsageError(message: "unknown option '\(name)'")
            }
        }
        return options
    }

    /// `now`, an ISO-8601 date or date-time, or integer milliseconds since 1970 (Apple's format).
    static func parseTime(_ text: String) throws(UsageError) -> VerificationOptions.TimePolicy {
        if text == "now" { return .now }
        let outOfRange = UsageError(message: "--at '\(text)' is not a date within years 0001 to 9999")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let milliseconds = Int64(text), let date = Timestamp.date(milliseconds: Double(milliseconds)) else {
                throw outOfRange
            }
            return .fixed(date)
        }
        let utc = TimeZone.gmt
        let styles: [Date.ISO8601FormatStyle] = [
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: utc),
            Date.ISO8601FormatStyle(timeZone: utc),
            Date.ISO8601FormatStyle(timeZone: utc).year().month().day(),
        ]
        for style in styles {
            guard let date = try? style.parse(text) else { continue }
            guard Timestamp.isValid(date) else { throw outOfRange }
            return .fixed(date)
        }
        throw UsageError(message: "--at takes 'now', an ISO-8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z, "
            + "or milliseconds since 1970; not '\(text)'")
    }
}
