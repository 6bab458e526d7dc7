internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect [inspect]`'s options: the one table the parser, `--help`, the man page and the
/// completions are made from, and the one mapping into `VerificationOptions`.
struct InspectOptions: HasKeyOptions, SubcommandOptions {
    typealias Format = OutputFormat

    enum ColorChoice: String, CaseIterable {
        case auto, always, never
    }

    var format = Format.table
    var quiet = false
    var showHelp = false
    /// `--brief`: the verdict line, a failure's reason and the summary line alone.
    var brief = false
    /// `--time-zone`: the zone tables show dates in, as given (resolved when the run starts).
    var timeZone: String?
    /// `--at 7d`: this long before now (resolved against the run's now).
    var atAgo: Double?
    /// What parsing noticed and the run says on standard error first (`--at` in seconds).
    var warnings: [String] = []
    var showVersion = false
    var color = ColorChoice.auto
    var timePolicy = VerificationOptions.TimePolicy.signingTime
    /// `--access-at`: when access is judged (nil: now), as given.
    var accessAt: GivenTime?
    var rootFiles: [String] = []
    var bundleId: String?
    var appAppleId: Int64?
    var environment: Environment?
    var kind: PayloadKind?
    var accountToken: UUID?
    var deviceID: UUID?
    var requireActive = false
    /// `--exact`: each input must be exactly one JWS, webhook body or receipt (`ExactInput`).
    var exact = false
    /// Verification threads; by default one per core.
    var jobs = InspectOptions.defaultJobs
    /// The number of standard input's first line (`--first-line`).
    var firstLine = 1
    var summary = false
    /// `--redact`: customer identifiers replaced by salted hashes in every format (`Redaction`).
    var redact = false
    var verify = true
    var strictX509 = false
    /// `--check-revocation` (or `--require-revocation-check`): ask OCSP responders.
    var checkRevocation = false
    var requireRevocationCheck = false
    /// `--revocation-cache DIR`.
    var revocationCache: String?
    /// inspect's `--timeout`: seconds one OCSP request may take (fetch has its own).
    var revocationTimeout: Int?
    /// The default of `--timeout` for OCSP requests.
    static let defaultRevocationTimeout = 10
    /// `--key`, `--key-id`: developer keys that developer-signed tokens are verified with.
    var keyOptions = KeyOptions()
    /// Inputs: tokens, file paths, or "-" for stdin; empty means stdin.
    var inputs: [String] = []

    /// The number of online processors.
    static var defaultJobs: Int { System.processorCount }

    static let verification = "Verification (the verdict)"
    static let expectations = "Expectations (each checked only when given)"
    static let output = "Output"
    static let revocation = "Revocation (online: nothing leaves the machine without --check-revocation)"
    static let developerKeys = "Developer keys (tokens signed with your own In-App Purchase key: a kid, no x5c)"

    /// Every option of `inspect`: `mainTable`, which fetch and timeline lift options from, and
    /// the options only inspect takes (the others refuse them as unknown, exit 64).
    static let table: [OptionSpec<InspectOptions>] =
        mainTable
        + [
            OptionSpec(
                ["--exact"], group: expectations,
                help: "Each input (a file, standard input, an argument) must be exactly one compact JWS, one webhook "
                    + "body {\"signedPayload\":\"…\"} with no other member, or one receipt (DER, or base64 on one "
                    + "line), with only whitespace around it; anything else is malformed (exit 5). For a backend that "
                    + "gates a purchase on the exit status: text around a token is not read past."
            ) { options, _ in
                options.exact = true
            },
            OptionSpec(
                ["--timeout"], .value("SECONDS"), group: revocation,
                help: "How long one OCSP request may take (1 to 300). Default: 10."
            ) { options, value throws(UsageError) in
                options.revocationTimeout = try ArgumentParser.wholeNumber(value, option: "--timeout", in: 1...300)
            },
        ]
        + KeyOptions.specs(
            group: developerKeys, issuerID: false, bundleID: false)

    static let mainTable: [OptionSpec<InspectOptions>] =
        [
            OptionSpec(
                ["--at"], .value("now|DATE"), group: verification,
                help:
                    "Check certificate validity at this time instead of the payload's signedDate (else receiptCreationDate, for "
                    + "app transactions). DATE is ISO-8601 (2024-05-01, 2024-05-01T12:00:00Z), milliseconds since 1970, "
                    + "within years 0001 to 9999, or a time ago as fetch --since takes it (7d, 12h, 90m). Validity now is "
                    + "always reported beside the verdict."
            ) { options, value throws(UsageError) in
                switch try GivenTime.parse(value, option: "--at", warnings: &options.warnings) {
                case .now:
                    options.timePolicy = .now
                    options.atAgo = nil
                case .ago(let seconds):
                    options.timePolicy = .now
                    options.atAgo = seconds
                case .fixed(let date):
                    options.timePolicy = .fixed(date)
                    options.atAgo = nil
                }
            },
            OptionSpec(
                ["--access-at"], .value("now|DATE"), group: verification,
                help:
                    "Judge access (--require-active, the access verdict) at this time instead of now; DATE as --at takes "
                    + "it. --at moves the certificate check time only."
            ) { options, value throws(UsageError) in
                options.accessAt = try GivenTime.parse(value, option: "--access-at", warnings: &options.warnings)
            },
            OptionSpec(
                ["--root"], .value("FILE"), group: verification,
                help:
                    "Trust the root certificates of FILE (DER, or PEM with one or more) instead of the embedded Apple roots; "
                    + "repeatable.", completes: .files
            ) { options, value in
                options.rootFiles.append(value)
            },
            OptionSpec(
                ["--x509-strict"], group: verification,
                help:
                    "Fail chains that OpenSSL's X509_V_FLAG_X509_STRICT checks refuse, as Apple's Python library does "
                    + "(by default they are RFC 5280-valid with a note)."
            ) { options, _ in
                options.strictX509 = true
            },
            OptionSpec(
                ["--check-revocation"], group: revocation,
                help:
                    "Ask the OCSP responder each certificate below the root names (its Authority Information "
                    + "Access) whether it is revoked, now: revoked fails the chain (exit 2); no usable answer exits 75 "
                    + "(try again). Sends certificate serial numbers and issuer hashes, nothing of the data."
            ) { options, _ in
                options.checkRevocation = true
            },
            OptionSpec(
                ["--require-revocation-check"], group: revocation,
                help:
                    "As --check-revocation, and a certificate naming no OCSP responder fails the chain (exit 2) "
                    + "instead of being noted."
            ) { options, _ in
                options.checkRevocation = true
                options.requireRevocationCheck = true
            },
            OptionSpec(
                ["--revocation-cache"], .value("DIR"), group: revocation,
                help:
                    "Keep signed OCSP answers in DIR (files readable by you only) until their nextUpdate, for runs of one token "
                    + "each; what is read is verified again. Created with its parents if missing.", completes: .files
            ) { options, value throws(UsageError) in
                guard !value.isEmpty else { throw UsageError("--revocation-cache needs a folder") }
                options.revocationCache = value
            },
            OptionSpec(
                ["--no-verify"], group: verification,
                help: "Decode only; check nothing cryptographic (and say so loudly)."
            ) { options, _ in
                options.verify = false
            },
            OptionSpec(["--bundle-id"], .value("ID"), group: expectations, help: "The app's bundle ID.") {
                options, value throws(UsageError) in
                guard !value.isEmpty else { throw UsageError("--bundle-id needs a non-empty bundle ID") }
                options.bundleId = value
            },
            OptionSpec(
                ["--app-apple-id"], .value("N"), group: expectations,
                help: "The app's Apple ID (where the payload carries one)."
            ) { options, value throws(UsageError) in
                guard isDigits(value),
                    let number = Int64(value)
                else {
                    throw UsageError("--app-apple-id must be a whole number, not '\(Excerpt.of(value))'")
                }
                options.appAppleId = number
            },
            OptionSpec(
                ["--environment"], .choice(Environment.allCases.map(\.rawValue)), group: expectations,
                help: "The environment the data must come from."
            ) { options, value in
                options.environment = Environment(rawValue: value)
            },
            OptionSpec(
                ["--account-token"], .value("UUID"), group: expectations,
                help: "The transaction's (or renewal info's) appAccountToken."
            ) { options, value throws(UsageError) in
                options.accountToken = try uuid(value, option: "--account-token")
            },
            OptionSpec(
                ["--device-id"], .value("UUID"), group: expectations,
                help: "The device's AppStore.deviceVerificationID, checked against deviceVerification and its nonce "
                    + "(SHA-384)."
            ) { options, value throws(UsageError) in
                options.deviceID = try uuid(value, option: "--device-id")
            },
            OptionSpec(
                ["--require-active"], group: expectations,
                help: "The transaction (a notification's, with its renewal info and status) must grant access at "
                    + "--access-at (default: now), by the one access model: active, or in a billing grace period "
                    + "its renewal info signs. An app transaction, renewal info alone or a consumable never does."
            ) { options, _ in
                options.requireActive = true
            },
            OptionSpec(
                ["--type"],
                .choice(
                    PayloadKind.allCases.filter { $0 != .unknown && $0 != .receipt && !$0.isDeveloperSigned }.map(
                        \.rawValue)),
                group: expectations,
                help: "Treat payloads as this kind (default: recognised from the payload)."
            ) { options, value in
                options.kind = PayloadKind(rawValue: value)
            },
        ]
        + OutputFormat.options(
            group: output,
            help: "Readable tables (the default); one pretty JSON object per JWS; or one compact JSON object per "
                + "line.", \.format)
        + [
            OptionSpec(
                ["--quiet", "-q"], group: output, help: "Print nothing on standard output; the exit status says it all."
            ) { options, _ in
                options.quiet = true
            },
            OptionSpec(
                ["--brief"], group: output,
                help:
                    "Per item only the verdict line, the failed check's reason and the summary line, for a support "
                    + "desk (tables only)."
            ) { options, _ in
                options.brief = true
            },
            OptionSpec(
                ["--time-zone"], .value("local|UTC|ZONE"), group: output,
                help:
                    "Show the dates of tables in this zone: local (TZ, else /etc/localtime), UTC (the default), an "
                    + "IANA name such as Europe/Paris, or an offset such as +02:00; JSON stays UTC."
            ) { options, value in
                options.timeZone = value
            },
            OptionSpec(
                ["--redact"], group: output,
                help:
                    "Replace customer identifiers (transaction, original transaction, web order line item and app "
                    + "transaction IDs, appAccountToken, device verification, a receipt's, the ID fetch asks "
                    + "about) with salted hashes in every format and on standard error, so output can be pasted "
                    + "into a ticket; nested JWS are replaced whole. The salt is JWSINSPECT_REDACT_SALT (the same "
                    + "hashes in every run), else one of this run."
            ) { options, _ in
                options.redact = true
            },
            OptionSpec(
                ["--summary"], group: output,
                help:
                    "After everything, count results by status on standard error (one JSON object there with --format "
                    + "json or jsonl)."
            ) { options, _ in
                options.summary = true
            },
            OptionSpec(
                ["--jobs", "-j"], .value("N"), group: output,
                help: "Verification threads (default: one per core); output stays in input order."
            ) { options, value throws(UsageError) in
                options.jobs = try ArgumentParser.wholeNumber(value, option: "--jobs", in: 1...256)
            },
            OptionSpec(
                ["--first-line"], .value("N"), group: output,
                help:
                    "Number standard input's lines from N (default 1), as the lines of a larger stream that it is a "
                    + "block of: GNU parallel --pipe -N BLOCK gives block {#} the first line (({#}-1)*BLOCK+1)."
            ) { options, value throws(UsageError) in
                options.firstLine = try ArgumentParser.wholeNumber(
                    value, option: "--first-line", in: 1...1_000_000_000_000_000)
            },
            OptionSpec(
                ["--color"], .optionalChoice(ColorChoice.allCases.map(\.rawValue), implied: "always"), group: output,
                help:
                    "Colours: auto (the default: on for a terminal, off when NO_COLOR is set and not empty or TERM is "
                    + "dumb, on when CLICOLOR_FORCE is set and not 0), always, or never. --color alone means always."
            ) { options, value in
                options.color = ColorChoice(rawValue: value) ?? .auto
            },
            OptionSpec(["--no-color"], group: output, help: "Short for --color=never.") { options, _ in
                options.color = .never
            },
            OptionSpec(["--help", "-h"], group: output, help: "This help.") { options, _ in
                options.showHelp = true
            },
            OptionSpec(["--version"], group: output, help: "The version, and the OpenSSL in use.") { options, _ in
                options.showVersion = true
            },
        ]

    /// Parses `inspect`'s arguments (without the program or subcommand name).
    static func parse(_ arguments: [String]) throws(UsageError) -> InspectOptions {
        var (options, inputs) = try ArgumentParser.parse(arguments, options: table, into: InspectOptions())
        options.inputs = inputs
        try options.checkOutput()
        return options
    }

    /// `--brief` shortens tables, `--time-zone` words them; JSON has every member by contract,
    /// its dates in UTC.
    mutating func checkOutput() throws(UsageError) {
        if brief, format != .table {
            throw UsageError("--brief is for tables; --format \(format.rawValue) prints every member")
        }
        if !checkRevocation, revocationCache != nil || revocationTimeout != nil {
            let given = revocationCache != nil ? "--revocation-cache" : "--timeout"
            throw UsageError("\(given) is for revocation checks: give --check-revocation too")
        }
        if checkRevocation, !verify {
            throw UsageError("--check-revocation checks a signature's certificates; --no-verify checks nothing")
        }
        if exact, firstLine != 1 {
            throw UsageError("--first-line numbers the lines of a stream; --exact reads each input as one item")
        }
        if let timeZone, format != .table {
            warnings.append("warning: --time-zone \(timeZone) is for tables; --format \(format.rawValue) writes UTC")
        }
    }

    /// What the environment sets that these options do not read, said once: `JWSINSPECT_BUNDLE_ID`
    /// is a credential of sign, fetch and verify-offer-v1 (README's set-up exports it); inspect's
    /// `--bundle-id` is an expectation, never taken from the environment.
    func ignoredEnvironment(_ environment: (String) -> String?) -> [String] {
        guard bundleId == nil, let value = environment(KeyOptions.bundleIDVariable), !value.isEmpty else { return [] }
        let shown = TerminalText.safe(Excerpt.of(value))
        return [
            "warning: \(KeyOptions.bundleIDVariable) (\(shown)) is a credential for sign and fetch, not read here: "
                + "--bundle-id \(shown) expects that bundle ID"
        ]
    }

    /// The zone `--time-zone` names (UTC when not given), or the usage error it is.
    func displayZone(environment: (String) -> String?) -> Result<DisplayZone, UsageError> {
        guard let timeZone else { return .success(.utc) }
        return DisplayZone.named(timeZone, environment: environment).mapError {
            UsageError("--time-zone: \($0.reason)")
        }
    }

    /// The verification these options ask for: the one place options become `VerificationOptions`.
    func verificationOptions(trustStore: TrustStore?, now: Date, revocation: RevocationCheck? = nil)
        -> VerificationOptions
    {
        var verification = trustStore.map { VerificationOptions(trustStore: $0) } ?? VerificationOptions()
        verification.now = now
        verification.hints = OptionHints()
        verification.timePolicy = atAgo.map { .fixed(now.addingTimeInterval(-$0)) } ?? timePolicy
        verification.accessAt = accessAt?.date(now: now)
        verification.expectedBundleId = bundleId
        verification.expectedAppAppleId = appAppleId
        verification.expectedEnvironment = environment
        verification.kindOverride = kind
        verification.expectedAccountToken = accountToken
        verification.deviceVerificationID = deviceID
        verification.requireActive = requireActive
        verification.strictX509 = strictX509
        verification.verifySignatures = verify
        verification.reportsValidityNow = !quiet
        verification.revocation = revocation?.requester
        verification.requireRevocationCheck = requireRevocationCheck
        return verification
    }

    /// Whether to colour tables: an explicit choice, else NO_COLOR (set and not empty) turns
    /// colours off, CLICOLOR_FORCE (set and not 0) on, TERM=dumb off, and a terminal on.
    func usesColor(stdoutIsTerminal: Bool, environment: (String) -> String?) -> Bool {
        switch color {
        case .always: return true
        case .never: return false
        case .auto:
            if let value = environment("NO_COLOR"), !value.isEmpty { return false }
            if let value = environment("CLICOLOR_FORCE"), !value.isEmpty, value != "0" { return true }
            if environment("TERM") == "dumb" { return false }
            return stdoutIsTerminal
        }
    }

    /// Only ASCII digits (no sign, no space: `Int("+4")` would take a sign).
    static func isDigits(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func uuid(_ value: String, option: String) throws(UsageError) -> UUID {
        guard let uuid = UUID(uuidString: value) else {
            throw UsageError(
                "\(option) must be a UUID such as 7e3fb20b-4cdb-47cc-936d-99d65f608138, not '\(Excerpt.of(value))'")
        }
        return uuid
    }

    /// `now`, an ISO-8601 date or date-time, or integer milliseconds since 1970 (Apple's format).
    static func parseTime(_ text: String, option: String = "--at") throws(UsageError) -> VerificationOptions.TimePolicy
    {
        if text.lowercased() == "now" { return .now }
        let outOfRange = UsageError("\(option) '\(Excerpt.of(text))' is not a date within years 0001 to 9999")
        if !text.isEmpty, isDigits(text) {
            guard let milliseconds = Int64(text), let date = Timestamp.date(milliseconds: Double(milliseconds)) else {
                throw outOfRange
            }
            return .fixed(date)
        }
        // Read as the output writes dates: proleptic Gregorian, as ISO 8601 has it (Foundation's
        // parser switches to the Julian calendar before 1582-10-15, so 0001-01-01 fell outside
        // year 1 and 1582-10-10 read as 1582-10-20). A date alone is its midnight, UTC.
        let isDateOnly =
            text.utf8.count == 10 && text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) }
        if let date = ReceiptDate.parse(isDateOnly ? text + "T00:00:00Z" : text) {
            guard Timestamp.isValid(date) else { throw outOfRange }
            return .fixed(date)
        }
        throw UsageError(
            "\(option) takes 'now', an ISO-8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z, "
                + "or milliseconds since 1970; not '\(Excerpt.of(text))'")
    }
}

/// A time as `--at` and `--access-at` take it: now, a moment, or a time ago (resolved
/// against the run's now).
enum GivenTime: Equatable {
    case now
    case fixed(Date)
    case ago(Double)

    /// The moment it names, against `now`.
    func date(now: Date) -> Date {
        switch self {
        case .now: now
        case .fixed(let date): date
        case .ago(let seconds): now.addingTimeInterval(-seconds)
        }
    }

    /// `value` as `option` takes it; ten digits or fewer add a warning that they are read as
    /// milliseconds.
    static func parse(_ value: String, option: String, warnings: inout [String]) throws(UsageError) -> GivenTime {
        if let ago = FetchOptions.timeAgo(value) { return .ago(ago) }
        guard case .fixed(let date) = try InspectOptions.parseTime(value, option: option) else { return .now }
        if InspectOptions.isDigits(value), value.count <= 10 {
            // Ten digits are seconds: the App Store's times are milliseconds, so say how it was read.
            warnings.append(
                "warning: \(option) \(value) is read as milliseconds since 1970 (\(ISO8601.string(date))); "
                    + "for seconds, give \(option) \(value)000")
        }
        return .fixed(date)
    }
}
