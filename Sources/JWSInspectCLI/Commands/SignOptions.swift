internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect sign KIND`'s options: the table the parser, help, man page and completions are
/// made from. Which claims a kind takes and needs is said once, in `Kind`, by `Claim`.
struct SignOptions: HasKeyOptions, SubcommandOptions {
    /// What `sign` makes: the four JWS kinds, and the legacy V1 offer signature.
    enum Kind: String, CaseIterable {
        case apiToken = "api-token"
        case promotionalOffer = "promotional-offer"
        case introductoryOfferEligibility = "introductory-offer-eligibility"
        case advancedCommerce = "advanced-commerce"
        case promotionalOfferV1 = "promotional-offer-v1"

        /// What inspect calls the token made (the `type` of its JSON record).
        var payloadKind: PayloadKind {
            switch self {
            case .apiToken: .apiToken
            case .promotionalOffer: .promotionalOffer
            case .introductoryOfferEligibility: .introductoryOfferEligibility
            case .advancedCommerce: .advancedCommerceRequest
            case .promotionalOfferV1: .unknown
            }
        }

        /// The claims this kind needs, beyond a key (and its ID).
        var required: [Claim] {
            switch self {
            case .apiToken: [.issuerID, .bundleID]
            case .promotionalOffer: [.issuerID, .bundleID, .productID, .offerID]
            case .introductoryOfferEligibility:
                [.issuerID, .bundleID, .productID, .allowIntroductoryOffer, .transactionID]
            case .advancedCommerce: [.issuerID, .bundleID, .request]
            case .promotionalOfferV1: [.bundleID, .productID, .offerID, .applicationUsername]
            }
        }

        /// The claims this kind takes besides the required ones.
        var optional: [Claim] {
            switch self {
            case .apiToken: [.lifetime]
            case .promotionalOffer: [.transactionID]
            case .introductoryOfferEligibility, .advancedCommerce: []
            case .promotionalOfferV1: [.nonce, .timestamp, .noApplicationUsername]
            }
        }
    }

    /// The options that say what is signed, each taken by the kinds that name it (`Kind.required`,
    /// `Kind.optional`); every other option (the key, the output group) is every kind's.
    enum Claim: String, CaseIterable {
        case issuerID = "--issuer-id"
        case bundleID = "--bundle-id"
        case lifetime = "--lifetime"
        case productID = "--product-id"
        case offerID = "--offer-id"
        case transactionID = "--transaction-id"
        case allowIntroductoryOffer = "--allow-introductory-offer"
        case request = "--request"
        case applicationUsername = "--application-username"
        case noApplicationUsername = "--no-application-username"
        case nonce = "--nonce"
        case timestamp = "--timestamp"
    }

    typealias Format = OutputFormat

    var keyOptions = KeyOptions()
    var kind: Kind?
    /// `--format` and `-q` (`OutputOptions`).
    var output = OutputOptions()
    var format: OutputFormat { output.format }
    var showHelp = false
    var showVersion = false
    var lifetime = DeveloperToken.defaultLifetime
    var productID: String?
    var offerID: String?
    var transactionID: String?
    var allowIntroductoryOffer: Bool?
    /// `--request` as given: JSON text, or `@FILE`.
    var request: String?
    var applicationUsername: String?
    var nonce: UUID?
    var timestamp: Int64?
    /// The claims given, to refuse those the kind does not take.
    var given: Set<Claim> = []

    static let keys = "Key and credentials"
    static let claims = "Claims"
    static let output = "Output"

    static let table: [OptionSpec<SignOptions>] =
        KeyOptions.specs(group: keys)
        + [
            claim(
                .lifetime, "DURATION",
                "api-token: exp - iat, in seconds (300, 300s), minutes (5m) or hours (1h); at most 60 minutes "
                    + "(Apple's limit). Default: 5m."
            ) { options, value throws(UsageError) in
                options.lifetime = try parseLifetime(value)
            },
            claim(.productID, "ID", "The product ID (productId).") { options, value throws(UsageError) in
                options.productID = try nonEmpty(value, "--product-id")
            },
            claim(.offerID, "ID", "The offer's identifier (offerIdentifier).") {
                options, value throws(UsageError) in
                options.offerID = try nonEmpty(value, "--offer-id")
            },
            claim(
                .transactionID, "ID",
                "The customer's transaction ID, original transaction ID or appTransactionId (transactionId): optional "
                    + "in a promotional offer, required for introductory offer eligibility."
            ) { options, value throws(UsageError) in
                options.transactionID = try nonEmpty(value, "--transaction-id")
            },
            OptionSpec(
                [Claim.allowIntroductoryOffer.rawValue], .choice(["true", "false"]), group: claims,
                help: "Whether the customer may have the introductory offer (allowIntroductoryOffer)."
            ) { options, value in
                options.given.insert(.allowIntroductoryOffer)
                options.allowIntroductoryOffer = value == "true"
            },
            claim(
                .request, "JSON|@FILE",
                "advanced-commerce: the in-app request, a JSON object (or @FILE holding it), carried as standard "
                    + "base64 of its UTF-8 bytes as given (whitespace around it dropped).", completes: .files
            ) { options, value throws(UsageError) in
                options.request = try nonEmpty(value, "--request")
            },
            claim(
                .applicationUsername, "TEXT",
                "promotional-offer-v1: the applicationUsername (or appAccountToken) the app sends "
                    + "(--no-application-username when it sends none). Signed in lowercase."
            ) { options, value throws(UsageError) in
                // '' from an unset variable would sign a name the app never sends.
                guard !value.isEmpty else {
                    throw UsageError(
                        "--application-username is empty: give the name the app sends, or "
                            + "--no-application-username when it sends none")
                }
                options.applicationUsername = value
            },
            OptionSpec(
                [Claim.noApplicationUsername.rawValue], group: claims,
                help: "promotional-offer-v1: sign with no applicationUsername, for an app that sends none."
            ) { options, _ in options.given.insert(.noApplicationUsername) },
            claim(.nonce, "UUID", "promotional-offer-v1: the nonce (default: a new UUID); signed in lowercase.") {
                options, value throws(UsageError) in
                guard let nonce = UUID(uuidString: value) else {
                    throw UsageError(
                        "--nonce must be a UUID such as 20fba8a0-2b80-4a7d-a17f-85c1854727f8, not '\(Excerpt.of(value))'"
                    )
                }
                options.nonce = nonce
            },
            claim(.timestamp, "MS", "promotional-offer-v1: UNIX milliseconds (default: now).") {
                options, value throws(UsageError) in
                guard !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let ms = Int64(value)
                else { throw UsageError("--timestamp must be milliseconds since 1970, not '\(Excerpt.of(value))'") }
                options.timestamp = ms
            },
        ]
        + OutputOptions.specs(
            \.output, taking: [.format, .quiet], group: output,
            help: [
                .format:
                    "table (the default): one line, the token (or for promotional-offer-v1 the base64 signature); "
                    + "json: a token record (docs/schema/): type, the token (jws), its header and its payload, the "
                    + "claims (for promotional-offer-v1 an offerSignatureV1 record: the signature and what it "
                    + "signed); jsonl: the same record on one line.",
                .quiet: "Print nothing: the exit status says whether the token could be made.",
            ])
        + StandardOptions.specs(group: output)

    /// A claim option taking a value, recorded as given.
    private static func claim(
        _ claim: Claim, _ placeholder: String, _ help: String, completes: OptionDoc.Completion? = nil,
        apply: @escaping @Sendable (inout SignOptions, String) throws(UsageError) -> Void
    ) -> OptionSpec<SignOptions> {
        OptionSpec([claim.rawValue], .value(placeholder), group: claims, help: help, completes: completes) {
            options, value throws(UsageError) in
            options.given.insert(claim)
            try apply(&options, value)
        }
    }

    /// Parses `sign`'s arguments (without the program or subcommand name): one KIND, the
    /// options it takes, and none it does not.
    static func parse(_ arguments: [String]) throws(UsageError) -> SignOptions {
        var (options, positional) = try ArgumentParser.parse(arguments, options: table, into: SignOptions())
        if options.showHelp || options.showVersion { return options }
        if options.keyOptions.issuerID != nil { options.given.insert(.issuerID) }
        if options.keyOptions.bundleID != nil { options.given.insert(.bundleID) }
        let kinds = Kind.allCases.map(\.rawValue)
        let given = try ArgumentParser.single(
            positional, command: "sign", needs: "a kind: \(ArgumentParser.list(kinds))", noun: "kind")
        guard let kind = ArgumentParser.kind(given, of: Kind.self) else {
            let suggestion = EditDistance.closest(to: given, among: kinds).map { " (did you mean '\($0)'?)" }
            throw UsageError(
                "sign: no kind '\(Excerpt.of(given))'\(suggestion ?? ""); there are \(ArgumentParser.list(kinds))"
            )
        }
        options.kind = kind
        let taken = Set(kind.required + kind.optional)
        if let stray = Claim.allCases.first(where: { options.given.contains($0) && !taken.contains($0) }) {
            throw UsageError("sign \(kind.rawValue) does not take \(stray.rawValue)")
        }
        // Credentials may come from the environment, checked when they are resolved.
        let credentials: Set<Claim> = [.issuerID, .bundleID]
        if options.given.contains(.noApplicationUsername) {
            guard !options.given.contains(.applicationUsername) else {
                throw UsageError("--application-username and --no-application-username: give one")
            }
            options.given.insert(.applicationUsername)
        }
        if let missing = kind.required.first(where: { !options.given.contains($0) && !credentials.contains($0) }) {
            throw UsageError(
                "sign \(kind.rawValue) needs \(missing.rawValue)"
                    + (missing == .applicationUsername ? " (or --no-application-username when the app sends none)" : "")
            )
        }
        return options
    }

    private static func nonEmpty(_ value: String, _ option: String) throws(UsageError) -> String {
        guard !value.isEmpty else { throw UsageError("\(option) needs a non-empty value") }
        return value
    }

    /// `300`, `300s`, `5m`, `1h`: seconds, from 1 to 3600.
    static func parseLifetime(_ text: String) throws(UsageError) -> Int64 {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600]
        var digits = Substring(text)
        var unit: Int64 = 1
        if let last = text.last, let multiplier = units[last] {
            unit = multiplier
            digits = digits.dropLast()
        }
        let problem = UsageError(
            "--lifetime must be from 1 second to 60 minutes, as 300, 300s, 5m or 1h; not '\(Excerpt.of(text))'")
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), digits.count <= 6,
            let count = Int64(digits)
        else { throw problem }
        let seconds = count * unit
        guard (1...DeveloperToken.maximumLifetime).contains(seconds) else { throw problem }
        return seconds
    }
}
