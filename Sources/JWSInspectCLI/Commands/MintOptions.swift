internal import JWSInspectCore
internal import TestPKI

/// `jwsinspect mint KIND`'s options.
struct MintOptions {
    /// What `mint` makes.
    enum Kind: String, CaseIterable {
        /// An Apple-shaped test PKI of one's own, written to a folder.
        case ca
    }

    var kind: Kind?
    var out: String?
    var validDays = 3650
    var rootCurve: TestKey.Curve = .p384
    var force = false
    var showHelp = false

    static let table: [OptionSpec<MintOptions>] = [
        OptionSpec(
            ["--out", "-o"], .value("DIR"), group: "Options",
            help: "The folder to write the CA to (created, mode 0700, with its parents).", completes: .files
        ) { options, value in options.out = value },
        OptionSpec(
            ["--valid-days"], .value("N"), group: "Options",
            help: "How long the three certificates are valid, from a day ago (1 to 36500; default 3650)."
        ) { options, value throws(UsageError) in
            options.validDays = try ArgumentParser.wholeNumber(value, option: "--valid-days", in: 1...36_500)
        },
        OptionSpec(
            ["--root-curve"], .choice(["P-384", "P-256"]), group: "Options",
            help: "The root's key: P-384 as Apple Root CA - G3 (default), or P-256."
        ) { options, value in options.rootCurve = value == "P-256" ? .p256 : .p384 },
        OptionSpec(
            ["--force"], group: "Options", help: "Write into a folder that is not empty (its CA files are replaced)."
        ) { options, _ in options.force = true },
        OptionSpec(["--help", "-h"], group: "Options", help: "This help.") { options, _ in options.showHelp = true },
    ]

    static func parse(_ arguments: [String]) throws(UsageError) -> MintOptions {
        var (options, positional) = try ArgumentParser.parse(arguments, options: table, into: MintOptions())
        if options.showHelp || positional.isEmpty { return options }
        let kinds = Kind.allCases.map(\.rawValue)
        let given = try ArgumentParser.single(
            positional, command: "mint", needs: "what to mint: \(ArgumentParser.list(kinds))", noun: "kind")
        guard let kind = Kind(rawValue: given.lowercased()) else {
            throw UsageError("mint: the kind must be \(ArgumentParser.list(kinds)), not '\(Excerpt.of(given))'")
        }
        options.kind = kind
        guard options.out != nil else { throw UsageError("mint ca: --out DIR is required (the folder to write to)") }
        return options
    }
}
