internal import AppStoreServerAPI
internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect fetch KIND [ID]`'s options: credentials, where and how to ask, each kind's
/// filters, and (lifted from `inspect`'s table) how the JWS of the answer are verified and shown.
struct FetchOptions: HasKeyOptions, SubcommandOptions {
    /// What to fetch (the filters a kind takes are declared with them, in `FetchFilters`).
    enum Kind: String, CaseIterable {
        case transaction
        case history
        case subscriptions
        case order
        case refunds
        case appTransaction = "app-transaction"
        case notifications
        case testNotification = "test-notification"
        case testNotificationStatus = "test-notification-status"
        case extensionStatus = "extension-status"
        case retentionImages = "retention-images"
        case retentionMessages = "retention-messages"
        case retentionDefault = "retention-default"
        case retentionRealtimeURL = "retention-realtime-url"
        case retentionPerformanceTest = "retention-performance-test"

        /// What the positional ID is, when the kind takes one.
        var idName: String? {
            switch self {
            case .order: "ORDER_ID"
            case .testNotificationStatus: "TOKEN"
            case .extensionStatus: "PRODUCT_ID REQUEST_ID"
            case .notifications, .testNotification, .retentionImages, .retentionMessages, .retentionRealtimeURL: nil
            case .retentionDefault: "PRODUCT_ID LOCALE"
            case .retentionPerformanceTest: "REQUEST_ID"
            default: "TRANSACTION_ID"
            }
        }
    }

    /// A date given as a moment or as a time before now (`7d`, `12h`), resolved when the run starts.
    enum DateValue: Equatable {
        case fixed(Date)
        case ago(Double)

        /// Whether this comes before `other`, when both are moments or both times ago (a moment
        /// and a time ago are only compared at the run, by Apple).
        func isBefore(_ other: DateValue) -> Bool {
            switch (self, other) {
            case (.fixed(let a), .fixed(let b)): a < b
            case (.ago(let a), .ago(let b)): a > b
            default: true
            }
        }

        func resolve(now: Date) -> Date {
            switch self {
            case .fixed(let date): date
            case .ago(let seconds): now.addingTimeInterval(-seconds)
            }
        }
    }

    var inspect = InspectOptions()
    var keyOptions = KeyOptions()
    var kind: Kind?
    var id: String?
    /// `fetch extension-status` and `retention-default`: the product asked about.
    var extensionProduct: String?
    var showHelp = false
    var showVersion = false
    var environment: ServerEnvironment?
    var productionURL: BaseURL?
    var sandboxURL: BaseURL?
    var timeout: Double = 30
    /// Whether `--timeout` was given: it then bounds OCSP requests too (else they get 10 s).
    var timeoutGiven = false
    var retries = 3
    var save: String?
    var limit: Int?
    var history = HistoryFilters()
    var startDate: DateValue?
    var endDate: DateValue?
    var statuses: [Int] = []
    var since: DateValue?
    var until: DateValue?
    var transactionID: String?
    var onlyFailures = false
    var notificationType: String?
    var notificationSubtype: String?
    var wait: Double = 30
    /// The filters given (their long names) and the kind each is for (declared with the filter,
    /// `FetchFilters`), to refuse those of another kind.
    var given: [String: Kind] = [:]

    static let credentials = "Credentials (an App Store Connect In-App Purchase key)"
    static let asking = "Asking"
    static let filters = "Filters (each for the kinds named)"

    /// inspect's groups fetch takes, applied to its `inspect` options: not the bundle ID and
    /// environment (fetch sets them from its credentials and the environment that answered),
    /// `--type` (an answer's items are recognised by where they are), `--first-line` or `--exact`.
    private static let inspectGroups: [OptionSpec<InspectOptions>] =
        InspectOptions.trust + InspectOptions.revocationChecks + InspectOptions.noVerify
        + InspectOptions.identityExpectations + InspectOptions.requireActiveOption
        + OutputOptions.specs(\.output, taking: Set(OutputOptions.Option.allCases), group: InspectOptions.output)
        + InspectOptions.jobsOption

    static let table: [OptionSpec<FetchOptions>] =
        KeyOptions.specs(group: credentials) + askingTable + FetchFilters.table
        + inspectGroups.map { $0.lifted(\.inspect) } + StandardOptions.specs(group: InspectOptions.output)

    private static let askingTable: [OptionSpec<FetchOptions>] = [
        OptionSpec(
            ["--environment"], .choice(ServerEnvironment.allCases.map(\.rawValue)), group: asking,
            help: "Ask this environment only, and expect its JWS to say so. Default: Production, then Sandbox when "
                + "Production does not know the ID (errorCode 4040010), as Apple advises."
        ) { options, value in
            options.environment = ServerEnvironment(rawValue: value)
        },
        OptionSpec(
            ["--production-url"], .value("URL"), group: asking,
            help: "Production's base URL (default https://api.storekit.apple.com): a proxy or a local test server; "
                + "plain http:// only to a loopback host."
        ) { options, value throws(UsageError) in
            options.productionURL = try baseURL(value, option: "--production-url")
        },
        OptionSpec(
            ["--sandbox-url"], .value("URL"), group: asking,
            help: "Sandbox's base URL (default https://api.storekit-sandbox.apple.com); as --production-url."
        ) { options, value throws(UsageError) in
            options.sandboxURL = try baseURL(value, option: "--sandbox-url")
        },
        OptionSpec(
            ["--timeout"], .value("SECONDS"), group: asking,
            help: "How long one request may take (1 to 300), to the API and to OCSP responders (--check-revocation). "
                + "Default: 30 to the API, 10 to a responder."
        ) { options, value throws(UsageError) in
            options.timeout = Double(try ArgumentParser.wholeNumber(value, option: "--timeout", in: 1...300))
            options.timeoutGiven = true
        },
        OptionSpec(
            ["--retries"], .value("N"), group: asking,
            help: "Retries of a request after 429 (waiting until Retry-After), 5xx, a timeout or a connection error "
                + "(backing off exponentially with jitter); 0 to 10, default 3. No wait is longer than 60 s."
        ) { options, value throws(UsageError) in
            options.retries = try ArgumentParser.wholeNumber(value, option: "--retries", in: 0...10)
        },
        OptionSpec(
            ["--limit"], .value("N"), group: asking, help: "Stop after N signed items (a history may have thousands)."
        ) { options, value throws(UsageError) in
            options.limit = try ArgumentParser.wholeNumber(value, option: "--limit", in: 1...10_000_000)
        },
        OptionSpec(
            ["--save"], .value("DIR"), group: asking,
            help:
                "Also write each answer's body as Apple sent it into DIR (created with its parents if missing; files readable by "
                + "you only), named by request and page: history-2000000000000010-Production-page-2.json.",
            completes: .files
        ) { options, value throws(UsageError) in
            guard !value.isEmpty else { throw UsageError("--save needs a folder") }
            options.save = value
        },
    ]

    /// Parses `fetch`'s arguments (without the program or subcommand name).
    static func parse(_ arguments: [String]) throws(UsageError) -> FetchOptions {
        var (options, positional) = try ArgumentParser.parse(arguments, options: table, into: FetchOptions())
        if options.showHelp || options.showVersion { return options }
        guard let first = positional.first else {
            throw UsageError("fetch needs a kind: \(ArgumentParser.list(Kind.allCases.map(\.rawValue)))")
        }
        guard let kind = ArgumentParser.kind(first, of: Kind.self) else {
            let hint = EditDistance.closest(to: first, among: Kind.allCases.map(\.rawValue)).map {
                " (did you mean '\($0)'?)"
            }
            throw UsageError(
                "fetch: '\(Excerpt.of(first))' is not something to fetch\(hint ?? ""); one of "
                    + ArgumentParser.list(Kind.allCases.map(\.rawValue)))
        }
        options.kind = kind
        try options.inspect.checkOutput()
        let rest = Array(positional.dropFirst())
        if kind == .extensionStatus || kind == .retentionDefault {
            let second = kind == .extensionStatus ? "REQUEST_ID" : "LOCALE"
            guard rest.count == 2 else {
                throw UsageError(
                    "fetch \(kind.rawValue) needs PRODUCT_ID \(second), not \(rest.count) argument"
                        + (rest.count == 1 ? "" : "s"))
            }
            let what = kind == .extensionStatus ? "a request identifier" : "a locale (en-US)"
            for (value, noun) in [(rest[0], "a product ID"), (rest[1], what)] {
                guard (1...128).contains(value.utf8.count), !value.contains("/") else {
                    throw UsageError("fetch \(kind.rawValue): '\(Excerpt.of(value))' is not \(noun)")
                }
            }
            (options.extensionProduct, options.id) = (rest[0], rest[1])
        } else if let idName = kind.idName {
            let id = try ArgumentParser.single(rest, command: "fetch \(kind.rawValue)", needs: idName, noun: "ID")
            options.id = try checkedID(id, kind: kind)
        } else if let extra = rest.first {
            throw UsageError("fetch \(kind.rawValue) takes no ID, but '\(Excerpt.of(extra))' was given")
        }
        for (option, taker) in options.given.sorted(by: { $0.key < $1.key }) where taker != kind {
            throw UsageError("\(option) is for fetch \(taker.rawValue), not fetch \(kind.rawValue)")
        }
        if kind == .notifications, options.since == nil {
            throw UsageError(
                "fetch notifications needs --since DATE (Apple keeps 180 days in Production, 30 in Sandbox)")
        }
        if kind == .notifications, options.transactionID != nil, options.notificationType != nil {
            throw UsageError("--transaction-id and --notification-type cannot go together (Apple refuses both at once)")
        }
        if options.notificationSubtype != nil, options.notificationType == nil {
            throw UsageError("--notification-subtype needs --notification-type")
        }
        for (start, end, names) in [
            (options.since, options.until, "--since must be before --until"),
            (options.startDate, options.endDate, "--start-date must be before --end-date"),
        ] {
            if let start, let end, !start.isBefore(end) { throw UsageError(names) }
        }
        if kind == .order, options.environment == .sandbox {
            throw UsageError("fetch order asks Production only: Apple's sandbox has no order IDs (Look Up Order ID)")
        }
        return options
    }

    /// A transaction ID is digits (Apple answers InvalidTransactionIdError otherwise); an order
    /// ID letters and digits.
    private static func checkedID(_ given: String, kind: Kind) throws(UsageError) -> String {
        let id = pasted(given, kind: kind)
        let bytes = Array(id.utf8)
        if kind == .testNotificationStatus || kind == .retentionPerformanceTest {
            // Apple's tokens are a UUID, an underscore and milliseconds; sent back in a URL.
            let ok =
                (1...128).contains(bytes.count)
                && bytes.allSatisfy {
                    ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || $0 == 45 || $0 == 95 || $0 == 46
                }
            guard ok else {
                throw UsageError(
                    kind == .retentionPerformanceTest
                        ? "a performance test's request ID is letters, digits, '-', '_' and '.'; not '\(Excerpt.of(id))'"
                        : "a test notification token is letters, digits, '-', '_' and '.' (the testNotificationToken "
                            + "fetch test-notification shows); not '\(Excerpt.of(id))'")
            }
        } else if kind == .order {
            let ok =
                (1...64).contains(bytes.count)
                && bytes.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) }
            guard ok else {
                throw UsageError("an order ID is letters and digits, like MQ7TYF9XYZ; not '\(Excerpt.of(id))'")
            }
        } else {
            guard (1...32).contains(bytes.count), bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                throw UsageError("a transaction ID is digits, like 2000000000000010; not '\(Excerpt.of(id))'")
            }
        }
        return id
    }

    /// An ID as pasted from an e-mail or a log: without surrounding whitespace and quotes, and
    /// without its label (`Order ID: MQ7TYF9XYZ`, `transactionId: 2000000000000010`).
    static func pasted(_ given: String, kind: Kind) -> String {
        let quotes: Set<Character> = ["\"", "'"]
        var id = Substring(given).trimmingWhitespace()
        while let first = id.first, quotes.contains(first), id.last == first, id.count >= 2 {
            id = id.dropFirst().dropLast().trimmingWhitespace()
        }
        let labels =
            kind == .order ? ["order id:", "order id", "order:"] : ["transaction id:", "transactionid:", "id:"]
        if let label = labels.first(where: { id.lowercased().hasPrefix($0) }) {
            id = id.dropFirst(label.count).trimmingWhitespace()
        }
        return String(id)
    }

    static func baseURL(_ value: String, option: String) throws(UsageError) -> BaseURL {
        switch BaseURL.parse(value) {
        case .success(let url): return url
        case .failure(let error): throw UsageError("\(option): \(error.message)")
        }
    }

    /// The seconds of a time ago, `30d`, `12h`, `90m` (at most six digits); nil for anything else.
    static func timeAgo(_ value: String) -> Double? {
        guard let unit = value.last, "dhm".contains(unit), value.count >= 2, value.count <= 7 else { return nil }
        let digits = value.dropLast()
        guard digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let count = Int(digits) else { return nil }
        return Double(count) * (unit == "d" ? 86_400 : unit == "h" ? 3_600 : 60)
    }

    /// An ISO-8601 date or date-time, milliseconds since 1970, or a time ago: `30d`, `12h`, `90m`.
    static func date(_ value: String, option: String) throws(UsageError) -> DateValue {
        if let seconds = timeAgo(value) { return .ago(seconds) }
        do throws(UsageError) {
            switch try InspectOptions.parseTime(value) {
            case .fixed(let date): return .fixed(date)
            default: return .ago(0)
            }
        } catch {
            throw UsageError(
                "\(option) takes an ISO-8601 date (2025-05-01, 2025-05-01T12:00:00Z), milliseconds since 1970, or a "
                    + "time ago (30d, 12h, 90m); not '\(Excerpt.of(value))'")
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and line breaks.
    fileprivate func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}
