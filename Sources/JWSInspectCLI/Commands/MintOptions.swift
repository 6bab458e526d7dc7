internal import AppStoreTestData
internal import JWSInspectCore

/// `jwsinspect mint KIND`'s options.
struct MintOptions: SubcommandOptions {
    /// What `mint` makes: a test CA, or one signed payload of an App Store kind.
    enum Kind: Equatable {
        case ca
        case token(MintKind)
        case suite
        case timeline

        static let names = ["ca"] + MintKind.allCases.map(\.rawValue) + ["suite", "timeline"]
    }

    typealias Format = OutputFormat

    var kind: Kind?
    var out: String?
    var validDays = 3650
    /// `mint ca --backdate N`: the leaf is valid from N days ago.
    var backdateDays = 1
    var rootCurve: KeyKind.Curve = .p384
    /// `--ocsp-url`, `--intermediate-ocsp-url`: the responders `mint ca` writes into the AIA.
    var ocspURL: String?
    var intermediateOCSPURL: String?
    var force = false
    var ca: String?
    var bundleID: String?
    var environment: String?
    var assignments: [String] = []
    var template: String?
    var notificationType = "SUBSCRIBED"
    /// `--allow-unknown-type`: a type or subtype Apple does not document is minted as given.
    var allowsUnknownType = false
    /// `--unset`: members to remove, after every `--set`.
    var removals: [String] = []
    /// `--allow-unknown-field`: `--set` may add a member Apple does not document.
    var allowsUnknownField = false
    /// `mint timeline --clean`: each notification once, in signing order.
    var cleanTimeline = false
    var subtype: String?
    /// `--format` and `-q` (`OutputOptions`), for a token.
    var output = OutputOptions()
    var format: OutputFormat { output.format }
    var showHelp = false
    var showVersion = false

    static let table: [OptionSpec<MintOptions>] =
        caOptions + tokenOptions + StandardOptions.specs(group: "Options")

    static let caOptions: [OptionSpec<MintOptions>] = [
        OptionSpec(
            ["--out", "-o"], .value("DIR"), group: "mint ca",
            help: "The folder to write the CA to (created, mode 0700, with its parents).", completes: .files
        ) { options, value in options.out = value },
        OptionSpec(
            ["--valid-days"], .value("N"), group: "mint ca",
            help: "How long the leaf is valid, from a day ago (1 to 36500; default 3650); the root and intermediate "
                + "from 30 days before to a year after it."
        ) { options, value throws(UsageError) in
            options.validDays = try ArgumentParser.wholeNumber(value, option: "--valid-days", in: 1...36_500)
        },
        OptionSpec(
            ["--backdate"], .value("DAYS"), group: "mint ca",
            help: "Make the leaf valid from DAYS days ago (1 to 36500; default 1), to sign data dated in the past: "
                + "mint timeline's log starts 65 days ago."
        ) { options, value throws(UsageError) in
            options.backdateDays = try ArgumentParser.wholeNumber(value, option: "--backdate", in: 1...36_500)
        },
        OptionSpec(
            ["--root-curve"], .choice(["P-384", "P-256"]), group: "mint ca",
            help: "The root's key: P-384 as Apple Root CA - G3 (default), or P-256."
        ) { options, value in options.rootCurve = value == "P-256" ? .p256 : .p384 },
        OptionSpec(
            ["--ocsp-url"], .value("URL"), group: "mint ca",
            help: "Name this OCSP responder in the intermediate's and the leaf's Authority Information Access, and "
                + "write index files for openssl ocsp (README.txt says how to run it): test revocation checks."
        ) { options, value throws(UsageError) in
            options.ocspURL = try ocspURL(value, option: "--ocsp-url")
        },
        OptionSpec(
            ["--intermediate-ocsp-url"], .value("URL"), group: "mint ca",
            help: "The intermediate's responder instead (its issuer is the root, so openssl ocsp answers for it "
                + "with another -CA: a second responder)."
        ) { options, value throws(UsageError) in
            options.intermediateOCSPURL = try ocspURL(value, option: "--intermediate-ocsp-url")
        },
        OptionSpec(
            ["--force"], group: "mint ca",
            help: "Write into a folder that is not empty (its files of the same names are replaced; a symbolic link "
                + "in their place is refused)."
        ) { options, _ in options.force = true },
    ]

    /// A URL `CertificateIssuer` can write into a certificate, or the usage error it is.
    private static func ocspURL(_ value: String, option: String) throws(UsageError) -> String {
        if let problem = CertificateIssuer.checkOCSPURL(value) {
            throw UsageError("\(option) '\(Excerpt.of(value))' \(problem)")
        }
        return value
    }

    static let tokenOptions: [OptionSpec<MintOptions>] =
        [
            OptionSpec(
                ["--ca"], .value("DIR"), group: "minting a token",
                help: "The CA folder mint ca wrote: its leaf key signs, its certificates are the x5c.",
                completes: .files
            ) { options, value in options.ca = value },
            OptionSpec(
                ["--clean"], group: "minting a token",
                help: "mint timeline: each notification once, in signing order (by default the renewal is "
                    + "delivered twice and the billing recovery before the failure, as deliveries really go)."
            ) { options, _ in options.cleanTimeline = true },
            OptionSpec(
                ["--bundle-id"], .value("ID"), group: "minting a token",
                help: "The app's bundle ID in the payload (default com.example.app)."
            ) { options, value in options.bundleID = value },
            OptionSpec(
                ["--environment"], .choice(Environment.allCases.map(\.rawValue)), group: "minting a token",
                help: "The environment in the payload (default Sandbox)."
            ) { options, value in options.environment = value },
            OptionSpec(
                ["--set"], .value("PATH=VALUE"), group: "minting a token",
                help: "Set a payload member, dotted for nested ones (data.status=1; at most 64 levels); VALUE is JSON "
                    + "when it parses as JSON, else a string. For a notification, transaction., renewalInfo. and "
                    + "appTransaction. set the nested payloads. Repeatable; applied in order, after --from."
            ) { options, value in options.assignments.append(value) },
            OptionSpec(
                ["--unset"], .value("PATH"), group: "minting a token",
                help: "Remove a payload member (dotted, as --set's PATH; transaction. and the like for a "
                    + "notification's nested payloads). Repeatable; applied after every --set."
            ) { options, value in options.removals.append(value) },
            OptionSpec(
                ["--allow-unknown-field"], group: "minting a token",
                help: "Let --set add a member Apple does not document for the payload (its first name; to test how "
                    + "a backend handles one). Without it such a --set is a usage error, a typo caught."
            ) { options, _ in options.allowsUnknownField = true },
            OptionSpec(
                ["--from"], .value("TEMPLATE.json"), group: "minting a token",
                help: "A JSON object whose members replace or add to the minted payload's.", completes: .files
            ) { options, value in options.template = value },
            OptionSpec(
                ["--notification-type"], .value("TYPE"), group: "minting a token",
                help: "The notification's notificationType (default SUBSCRIBED)."
            ) { options, value in options.notificationType = value },
            OptionSpec(
                ["--notification-subtype", "--subtype"], .value("SUBTYPE"), group: "minting a token",
                help: "The notification's subtype (default: the one Apple sends with the type, if any)."
            ) { options, value in options.subtype = value },
            OptionSpec(
                ["--allow-unknown-type"], group: "minting a token",
                help: "Mint a --notification-type or --notification-subtype Apple does not document, as given (to "
                    + "test how a backend handles one)."
            ) { options, _ in options.allowsUnknownType = true },
        ]
        + OutputOptions.specs(
            \.output, taking: [.format, .quiet], group: "minting a token",
            help: [
                .format:
                    "table (the default): the JWS alone, one line; json: a token record (docs/schema/): type, jws, "
                    + "header and payload, pretty; jsonl: the same record on one line.",
                .quiet: "Print nothing: the exit status says whether the token could be made.",
            ])

    /// Refuses a notification type or subtype Apple does not document, naming the one meant when
    /// it is close (`did_renew`, `DID_RENEWW`: `DID_RENEW`).
    private static func documented(_ value: String, field: String, option: String) throws(UsageError) {
        let known = FieldMeanings.documentedValues(of: field)
        guard !known.contains(value) else { return }
        let meant =
            known.contains(value.uppercased()) ? value.uppercased() : EditDistance.closest(to: value, among: known)
        throw UsageError(
            "mint notification: \(option) '\(Excerpt.of(value))' is not a \(field) Apple documents"
                + (meant.map { " (did you mean '\($0)'?)" } ?? "") + "; --allow-unknown-type mints it as given")
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> MintOptions {
        var (options, positional) = try ArgumentParser.parse(arguments, options: table, into: MintOptions())
        if options.showHelp || options.showVersion { return options }
        let given = try ArgumentParser.single(
            positional, command: "mint", needs: "what to mint: \(ArgumentParser.list(Kind.names))", noun: "kind")
        if given.lowercased() == "ca" {
            options.kind = .ca
            guard options.out != nil else {
                throw UsageError("mint ca: --out DIR is required (the folder to write to)")
            }
        } else if given.lowercased() == "timeline" {
            options.kind = .timeline
            guard options.ca != nil else {
                throw UsageError("mint timeline: --ca DIR is required (a folder mint ca wrote)")
            }
        } else if given.lowercased() == "suite" {
            options.kind = .suite
            guard options.ca != nil, options.out != nil else {
                throw UsageError("mint suite: --ca DIR and --out DIR2 are required")
            }
        } else if let kind = ArgumentParser.kind(given, of: MintKind.self) {
            options.kind = .token(kind)
            guard options.ca != nil else {
                throw UsageError("mint \(kind.rawValue): --ca DIR is required (a folder mint ca wrote)")
            }
            if kind == .notification, !options.allowsUnknownType {
                try documented(options.notificationType, field: "notificationType", option: "--notification-type")
                if let subtype = options.subtype {
                    try documented(subtype, field: "subtype", option: "--notification-subtype")
                }
            }
        } else {
            throw UsageError("mint: the kind must be \(ArgumentParser.list(Kind.names)), not '\(Excerpt.of(given))'")
        }
        // A CA and a suite are files and a line of text saying where they went; a timeline is
        // webhook bodies as Apple posts them. --format words a minted token alone.
        if options.format != .table, let kind = options.kind {
            let written: String? =
                switch kind {
                case .ca, .suite: "writes files and says where in text"
                case .timeline: "prints webhook bodies as Apple posts them, one a line"
                case .token: nil
                }
            if let written {
                throw UsageError(
                    "mint \(given.lowercased()) \(written); --format \(options.format.rawValue) is for a minted token")
            }
        }
        return options
    }
}
