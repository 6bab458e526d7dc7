internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect [inspect]`'s options: the one table the parser, `--help`, the man page and the
/// completions are made from, and the one mapping into `VerificationOptions`.
struct InspectOptions: HasKeyOptions, SubcommandOptions {
    typealias Format = OutputFormat

    /// `--format`, `-q`, `--brief`, `--time-zone`, `--redact`, `--summary`, `--color`: the
    /// output group every printing subcommand shares (`OutputOptions`).
    var output = OutputOptions()
    var showHelp = false
    /// `--at 7d`: this long before now (resolved against the run's now).
    var atAgo: Double?
    /// What parsing noticed and the run says on standard error first (`--at` in seconds).
    var warnings: [String] = []
    var showVersion = false
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

    // The output group's members, as the run reads them.
    var format: OutputFormat {
        get { output.format }
        set { output.format = newValue }
    }
    var quiet: Bool {
        get { output.quiet }
        set { output.quiet = newValue }
    }
    var brief: Bool {
        get { output.brief }
        set { output.brief = newValue }
    }
    var timeZone: String? { output.timeZone }
    var redact: Bool { output.redact }
    var summary: Bool { output.summary }

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

    /// inspect's option groups, each one list (as swift-argument-parser's `@OptionGroup`): fetch
    /// and timeline compose the groups they take, by name, and leave out the others whole.
    static let mainTable: [OptionSpec<InspectOptions>] =
        trust + revocationChecks + noVerify + appExpectations + identityExpectations + requireActiveOption
        + typeOption + OutputOptions.specs(\.output, taking: Set(OutputOptions.Option.allCases), group: output)
        + jobsOption + firstLineOption + StandardOptions.specs(group: output)

    /// How certificates are checked and against what: `--at`, `--access-at`, `--root`, `--x509-strict`.
    static let trust: [OptionSpec<InspectOptions>] = [
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
    ]

    /// Online revocation checks (fetch has its own `--timeout`, inspect adds one).
    static let revocationChecks: [OptionSpec<InspectOptions>] = [
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
    ]

    /// `--no-verify`: not for timeline, which folds verified data only.
    static let noVerify: [OptionSpec<InspectOptions>] = [
        OptionSpec(
            ["--no-verify"], group: verification,
            help: "Decode only; check nothing cryptographic (and say so loudly)."
        ) { options, _ in
            options.verify = false
        }
    ]

    /// The bundle ID and environment the data must be for: fetch sets them itself, from its
    /// credentials and the environment that answered.
    static let appExpectations: [OptionSpec<InspectOptions>] = [
        OptionSpec(["--bundle-id"], .value("ID"), group: expectations, help: "The app's bundle ID.") {
            options, value throws(UsageError) in
            guard !value.isEmpty else { throw UsageError("--bundle-id needs a non-empty bundle ID") }
            options.bundleId = value
        },
        OptionSpec(
            ["--environment"], .choice(Environment.allCases.map(\.rawValue)), group: expectations,
            help: "The environment the data must come from."
        ) { options, value in
            options.environment = Environment(rawValue: value)
        },
    ]

    /// The app's Apple ID, the customer and the device the data must be about.
    static let identityExpectations: [OptionSpec<InspectOptions>] = [
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
    ]

    /// `--require-active`: not for timeline, which decides access itself for every period.
    static let requireActiveOption: [OptionSpec<InspectOptions>] = [
        OptionSpec(
            ["--require-active"], group: expectations,
            help: "The transaction (a notification's, with its renewal info and status) must grant access at "
                + "--access-at (default: now), by the one access model: active, or in a billing grace period "
                + "its renewal info signs. An app transaction, renewal info alone or a consumable never does."
        ) { options, _ in
            options.requireActive = true
        }
    ]

    /// `--type`: not for fetch and timeline, whose items are recognised by where they are.
    static let typeOption: [OptionSpec<InspectOptions>] = [
        OptionSpec(
            ["--type"],
            .choice(
                PayloadKind.allCases.filter {
                    $0 != .unknown && $0 != .receipt && $0 != .transactionReceipt && $0 != .realtimeResponse
                        && !$0.isDeveloperSigned
                }.map(\.rawValue)),
            group: expectations,
            help: "Treat payloads as this kind (default: recognised from the payload)."
        ) { options, value in
            options.kind = PayloadKind(rawValue: value)
        }
    ]

    /// `--jobs`: verification threads.
    static let jobsOption: [OptionSpec<InspectOptions>] = [
        OptionSpec(
            ["--jobs", "-j"], .value("N"), group: output,
            help: "Verification threads (default: one per core); output stays in input order."
        ) { options, value throws(UsageError) in
            options.jobs = try ArgumentParser.wholeNumber(value, option: "--jobs", in: 1...256)
        }
    ]

    /// `--first-line`: inspect alone (a stream that is a block of a larger one).
    static let firstLineOption: [OptionSpec<InspectOptions>] = [
        OptionSpec(
            ["--first-line"], .value("N"), group: output,
            help:
                "Number standard input's lines from N (default 1), as the lines of a larger stream that it is a "
                + "block of: GNU parallel --pipe -N BLOCK gives block {#} the first line (({#}-1)*BLOCK+1)."
        ) { options, value throws(UsageError) in
            options.firstLine = try ArgumentParser.wholeNumber(
                value, option: "--first-line", in: 1...1_000_000_000_000_000)
        }
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
        // The two options for tables alone warn alike with JSON, which they leave as it is.
        if brief, format != .table {
            warnings.append("warning: --brief is for tables; --format \(format.rawValue) prints every member")
            brief = false
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

    /// Whether to colour tables (`OutputOptions.usesColor`).
    func usesColor(stdoutIsTerminal: Bool, environment: (String) -> String?) -> Bool {
        output.usesColor(stdoutIsTerminal: stdoutIsTerminal, environment: environment)
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
