internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect verify-offer-v1`'s options: the table the parser, help, man page and
/// completions are made from. Every field of the signed string is required (the bundle ID may
/// come from `JWSINSPECT_BUNDLE_ID`, the key and its ID from theirs), and one SIGNATURE.
struct VerifyOfferV1Options: HasKeyOptions, SubcommandOptions {
    typealias Format = OutputFormat

    var keyOptions = KeyOptions()
    /// `--format`, `-q`, `--color` (`OutputOptions`).
    var output = OutputOptions()
    var format: OutputFormat { output.format }
    var showHelp = false
    var showVersion = false
    var productID: String?
    var offerID: String?
    var applicationUsername: String?
    var nonce: UUID?
    var timestamp: Int64?
    /// The signature's DER bytes (checked to be standard base64 of one DER signature).
    var signature: [UInt8] = []

    static let keys = "Key"
    static let fields = "Signed fields"
    static let output = "Output"

    /// The fields that have no default, in the order Apple signs them.
    static let required = ["--product-id", "--offer-id", "--application-username", "--nonce", "--timestamp"]

    static let table: [OptionSpec<VerifyOfferV1Options>] =
        KeyOptions.specs(group: keys, issuerID: false)
        + [
            OptionSpec(["--product-id"], .value("ID"), group: fields, help: "The product ID (productIdentifier).") {
                options, value throws(UsageError) in
                options.productID = try nonEmpty(value, "--product-id")
            },
            OptionSpec(
                ["--offer-id"], .value("ID"), group: fields,
                help: "The promotional offer's identifier (offerIdentifier)."
            ) { options, value throws(UsageError) in
                options.offerID = try nonEmpty(value, "--offer-id")
            },
            OptionSpec(
                ["--application-username"], .value("TEXT"), group: fields,
                help: "The applicationUsername (or appAccountToken) the app sends; may be empty. Signed in lowercase, "
                    + "so its case does not matter."
            ) { options, value in
                options.applicationUsername = value
            },
            OptionSpec(
                ["--nonce"], .value("UUID"), group: fields,
                help: "The nonce the app passes to StoreKit; signed in lowercase, so its case does not matter."
            ) { options, value throws(UsageError) in
                guard let nonce = UUID(uuidString: value) else {
                    throw UsageError(
                        "--nonce must be a UUID such as 20fba8a0-2b80-4a7d-a17f-85c1854727f8, not '\(Excerpt.of(value))'"
                    )
                }
                options.nonce = nonce
            },
            OptionSpec(
                ["--timestamp"], .value("MS"), group: fields,
                help: "The timestamp the app passes to StoreKit: UNIX milliseconds. The App Store refuses a signature "
                    + "whose timestamp is more than 24 hours old; that is reported, and the exit status stays the "
                    + "signature's."
            ) { options, value throws(UsageError) in
                options.timestamp = try parseTimestamp(value)
            },
        ]
        + OutputOptions.specs(
            \.output, taking: [.format, .quiet, .color], group: output,
            help: [
                .format:
                    "table (the default): the verdict, the checks, the exact signed string and the fields; json: an "
                    + "offerVerificationV1 record (docs/schema/); jsonl: the same record on one line.",
                .color: "Colour the text: auto (the default, as for inspect), always, or never.",
            ])
        + StandardOptions.specs(group: output)

    /// Parses the arguments (without the program or subcommand name): every field, and one
    /// SIGNATURE, standard base64 of a DER signature.
    static func parse(_ arguments: [String]) throws(UsageError) -> VerifyOfferV1Options {
        var (options, positional) = try ArgumentParser.parse(arguments, options: table, into: VerifyOfferV1Options())
        if options.showHelp || options.showVersion { return options }
        let given: [String: Bool] = [
            "--product-id": options.productID != nil, "--offer-id": options.offerID != nil,
            "--application-username": options.applicationUsername != nil, "--nonce": options.nonce != nil,
            "--timestamp": options.timestamp != nil,
        ]
        if let missing = required.first(where: { given[$0] != true }) {
            throw UsageError("verify-offer-v1 needs \(missing)")
        }
        let signature = try ArgumentParser.single(
            positional, command: "verify-offer-v1",
            needs: "the SIGNATURE (standard base64, as the app passes it to StoreKit)", noun: "SIGNATURE")
        switch PromotionalOfferV1.derSignature(base64: signature) {
        case .success(let der): options.signature = der
        case .failure(let error): throw UsageError("the SIGNATURE '\(Excerpt.of(signature))' \(error)")
        }
        return options
    }

    /// UNIX milliseconds: ASCII digits, at most 9999-12-31T23:59:59.999Z.
    static func parseTimestamp(_ value: String) throws(UsageError) -> Int64 {
        guard !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let ms = Int64(value),
            ms <= PromotionalOfferV1.maximumTimestamp
        else {
            throw UsageError(
                "--timestamp must be UNIX milliseconds, a whole number from 0 to \(PromotionalOfferV1.maximumTimestamp) "
                    + "(year 9999), not '\(Excerpt.of(value))'")
        }
        return ms
    }

    private static func nonEmpty(_ value: String, _ option: String) throws(UsageError) -> String {
        guard !value.isEmpty else { throw UsageError("\(option) needs a non-empty value") }
        return value
    }

    func usesColor(stdoutIsTerminal: Bool, environment: (String) -> String?) -> Bool {
        output.usesColor(stdoutIsTerminal: stdoutIsTerminal, environment: environment)
    }
}
