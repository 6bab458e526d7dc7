internal import FoundationEssentials
internal import JWSInspectCore

/// A subcommand's values that hold developer key options (`sign`, `inspect --key`, `fetch`).
/// (The option closures capture its metatype: Swift 6.2 wants that to be `SendableMetatype`.)
#if compiler(>=6.2)
    protocol HasKeyOptions: SendableMetatype {
        var keyOptions: KeyOptions { get set }
    }
#else
    protocol HasKeyOptions {
        var keyOptions: KeyOptions { get set }
    }
#endif

/// The developer's key and credentials: `--key FILE` (repeatable), `--key-id ID`,
/// `--issuer-id UUID`, `--bundle-id ID`, each falling back to its environment variable
/// (`JWSINSPECT_KEY_FILE`, `JWSINSPECT_KEY_ID`, `JWSINSPECT_ISSUER_ID`, `JWSINSPECT_BUNDLE_ID`)
/// when the flag is absent. Parsing only records what was given; `keys`, `signingKey`,
/// `issuerID` and `bundleID` resolve it (they read the files and the environment).
struct KeyOptions {
    var keyFiles: [String] = []
    var keyID: String?
    var issuerID: String?
    var bundleID: String?

    static let keyFileVariable = "JWSINSPECT_KEY_FILE"
    static let keyIDVariable = "JWSINSPECT_KEY_ID"
    static let issuerIDVariable = "JWSINSPECT_ISSUER_ID"
    static let bundleIDVariable = "JWSINSPECT_BUNDLE_ID"

    /// The variables and what each supplies, for the man page.
    static let environment = [
        (keyFileVariable, "The key file when no --key is given."),
        (keyIDVariable, "The key ID when no --key-id is given (and one key is)."),
        (issuerIDVariable, "The issuer ID when no --issuer-id is given."),
        (bundleIDVariable, "The bundle ID when no --bundle-id is given (sign, verify-offer-v1, fetch)."),
    ]

    /// Why the key options cannot be used: one line, and the exit status (64 usage or
    /// unusable file, 66 unreadable file).
    struct Failure: Error {
        let message: String
        let status: ExitStatus
        /// Whether the command line is at fault (the usage line follows the message), rather
        /// than a file.
        var isUsage = false
        /// The key file came from `JWSINSPECT_KEY_FILE`, not from `--key`.
        var fromEnvironment = false

        static func usage(_ message: String) -> Failure { Failure(message: message, status: .usage, isUsage: true) }
    }

    /// The environment variables standing in for the key options, each with the option it stands in for.
    static let variables = [
        (keyFileVariable, "--key"), (keyIDVariable, "--key-id"), (issuerIDVariable, "--issuer-id"),
        (bundleIDVariable, "--bundle-id"),
    ]

    /// A key file with the key ID it goes by.
    struct Resolved {
        let keyID: String
        let file: KeyFile

        var developerKey: DeveloperKey { DeveloperKey(keyID: keyID, publicKey: file.publicKey) }
    }

    // MARK: Option table

    /// The option specs, for a subcommand's table; `bundleID: false` leaves `--bundle-id` to
    /// the subcommand (`inspect` has its own, an expectation).
    static func specs<Values: HasKeyOptions>(group: String, issuerID: Bool = true, bundleID: Bool = true)
        -> [OptionSpec<Values>]
    {
        var specs: [OptionSpec<Values>] = [
            OptionSpec(
                ["--key"], .value("FILE"), group: group,
                help:
                    "An App Store Connect In-App Purchase key as downloaded (AuthKey_KEYID.p8, PKCS#8 PEM, EC P-256), "
                    + "or its public key PEM (openssl ec -pubout). Default: $\(keyFileVariable).", completes: .files
            ) { values, value throws(UsageError) in
                guard !value.isEmpty else { throw UsageError("--key needs a file name") }
                values.keyOptions.keyFiles.append(value)
            },
            OptionSpec(
                ["--key-id"], .value("ID"), group: group,
                help: "The key's ID, when its file name (AuthKey_KEYID.p8, SubscriptionKey_KEYID.p8) does not say it; "
                    + "applies to the one --key. Default: $\(keyIDVariable)."
            ) { values, value throws(UsageError) in
                values.keyOptions.keyID = try nonEmpty(value, option: "--key-id", what: "key ID")
            },
        ]
        if issuerID {
            specs.append(
                OptionSpec(
                    ["--issuer-id"], .value("UUID"), group: group,
                    help: "The issuer ID of the App Store Connect keys page (iss). Default: $\(issuerIDVariable)."
                ) { values, value throws(UsageError) in
                    values.keyOptions.issuerID = try uuid(value, option: "--issuer-id")
                })
        }
        if bundleID {
            specs.append(
                OptionSpec(
                    ["--bundle-id"], .value("ID"), group: group,
                    help: "The app's bundle ID (bid), case-sensitive. Default: $\(bundleIDVariable)."
                ) { values, value throws(UsageError) in
                    values.keyOptions.bundleID = try nonEmpty(value, option: "--bundle-id", what: "bundle ID")
                })
        }
        return specs
    }

    // MARK: Resolving

    /// Every key given (`--key`, else `$JWSINSPECT_KEY_FILE`), with its key ID, and the
    /// warnings to print on standard error (private keys readable by group or others).
    /// No key at all is an empty list; the caller decides whether that is an error.
    func keys(environment: (String) -> String?) throws(Failure) -> (keys: [Resolved], warnings: [String]) {
        var paths = keyFiles
        var fromEnvironment = false
        if paths.isEmpty, let variable = Self.value(Self.keyFileVariable, environment) {
            paths = [variable]
            fromEnvironment = true
        }
        // Messages name where the file came from: the option, or the variable that stood in for it.
        let source = fromEnvironment ? Self.keyFileVariable : "--key"
        if keyID != nil, paths.count > 1 {
            throw .usage("--key-id applies to a single --key, and \(paths.count) are given: name them AuthKey_KEYID.p8")
        }
        var id = keyID
        if id == nil, paths.count == 1 { id = Self.value(Self.keyIDVariable, environment) }
        var resolved: [Resolved] = []
        var warnings: [String] = []
        for path in paths {
            let file: KeyFile
            do throws(KeyFile.LoadError) {
                file = try KeyFile.load(path: path)
            } catch {
                switch error {
                case .unreadable:
                    throw Failure(message: "\(source): \(error)", status: .unreadable, fromEnvironment: fromEnvironment)
                case .unusable:
                    throw Failure(message: "\(source): \(error)", status: .usage, fromEnvironment: fromEnvironment)
                }
            }
            guard let keyID = id ?? file.keyIDFromName else {
                throw .usage(
                    "\(source) '\(path)': no key ID; give --key-id ID (or \(Self.keyIDVariable)), or name the file "
                        + "AuthKey_KEYID.p8")
            }
            if file.privateKey != nil, KeyFile.isReadableByGroupOrOthers(path: path) {
                warnings.append(
                    "warning: private key file '\(path)' is readable by group or others (chmod 600 '\(path)')")
            }
            resolved.append(Resolved(keyID: keyID, file: file))
        }
        return (resolved, warnings)
    }

    /// The developer keys given, as the developer-key trust model takes them.
    func developerKeys(environment: (String) -> String?) throws(Failure) -> (
        keys: [DeveloperKey], warnings: [String]
    ) {
        let (resolved, warnings) = try keys(environment: environment)
        return (resolved.map(\.developerKey), warnings)
    }

    /// The one private key to sign with, and its key ID.
    func signingKey(environment: (String) -> String?) throws(Failure) -> (
        key: PrivateKey, keyID: String, warnings: [String]
    ) {
        let (resolved, warnings) = try keys(environment: environment)
        guard let first = resolved.first else {
            throw .usage("a key is needed: --key FILE (or \(Self.keyFileVariable))")
        }
        guard resolved.count == 1 else { throw .usage("one --key signs, not \(resolved.count)") }
        guard let key = first.file.privateKey else {
            throw .usage("--key '\(first.file.path)' is a public key; signing needs the private key (.p8)")
        }
        return (key, first.keyID, warnings)
    }

    /// `--issuer-id`, else `$JWSINSPECT_ISSUER_ID` (checked to be a UUID).
    func issuerID(environment: (String) -> String?) throws(Failure) -> String {
        if let issuerID { return issuerID }
        guard let value = Self.value(Self.issuerIDVariable, environment) else {
            throw .usage("an issuer ID is needed: --issuer-id UUID (or \(Self.issuerIDVariable))")
        }
        do throws(UsageError) {
            return try Self.uuid(value, option: Self.issuerIDVariable)
        } catch {
            throw .usage(error.message)
        }
    }

    /// `--bundle-id`, else `$JWSINSPECT_BUNDLE_ID`.
    func bundleID(environment: (String) -> String?) throws(Failure) -> String {
        if let bundleID { return bundleID }
        guard let value = Self.value(Self.bundleIDVariable, environment) else {
            throw .usage("a bundle ID is needed: --bundle-id ID (or \(Self.bundleIDVariable))")
        }
        return value
    }

    /// An environment variable's value when it is set and not empty.
    private static func value(_ name: String, _ environment: (String) -> String?) -> String? {
        guard let value = environment(name), !value.isEmpty else { return nil }
        return value
    }

    private static func nonEmpty(_ value: String, option: String, what: String) throws(UsageError) -> String {
        guard !value.isEmpty else { throw UsageError("\(option) needs a non-empty \(what)") }
        return value
    }

    /// A UUID, kept as written (Apple compares the issuer ID as text).
    static func uuid(_ value: String, option: String) throws(UsageError) -> String {
        guard UUID(uuidString: value) != nil else {
            throw UsageError(
                "\(option) must be a UUID such as 57246542-96fe-1a63-e053-0824d011072a, not '\(Excerpt.of(value))'")
        }
        return value
    }
}
