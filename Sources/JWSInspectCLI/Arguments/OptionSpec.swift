/// One command-line option, described once. The parser, `--help`, the man page, the shell
/// completions and did-you-mean suggestions are all made from these descriptions.
struct OptionSpec<Values>: Sendable {
    /// What the documentation needs (everything but how the value is applied).
    let doc: OptionDoc
    /// Applies the option to the values being built; `value` is "" for a flag, else the
    /// value as given (for a choice, its canonical spelling).
    let apply: @Sendable (inout Values, String) throws(UsageError) -> Void

    init(
        _ names: [String], _ value: OptionValue = .flag, group: String, help: String,
        completes: OptionDoc.Completion? = nil,
        apply: @escaping @Sendable (inout Values, String) throws(UsageError) -> Void
    ) {
        let completion: OptionDoc.Completion
        switch value {
        case .choice(let values), .optionalChoice(let values, _): completion = completes ?? .values(values)
        default: completion = completes ?? .none
        }
        doc = OptionDoc(names: names, value: value, group: group, help: help, completion: completion)
        self.apply = apply
    }

    /// An option with the documentation of another (another subcommand's option, lifted).
    init(doc: OptionDoc, apply: @escaping @Sendable (inout Values, String) throws(UsageError) -> Void) {
        self.doc = doc
        self.apply = apply
    }
}

/// How an option takes its value.
enum OptionValue: Equatable {
    /// A flag: no value.
    case flag
    /// A value, shown as the placeholder ("N", "DATE", "FILE").
    case value(String)
    /// One of fixed values, matched without regard to case.
    case choice([String])
    /// `--color`, `--color=WHEN` or `--color WHEN`: alone it means `implied`.
    case optionalChoice([String], implied: String)
}

/// An option as documentation sees it.
struct OptionDoc: Equatable {
    /// Long name first (`--jobs`), then any short one (`-j`).
    let names: [String]
    let value: OptionValue
    /// The section of `--help` and the man page it belongs to.
    let group: String
    /// What it does, in sentences; wrapped where it is shown.
    let help: String
    let completion: Completion

    /// What a shell completes after the option.
    enum Completion: Equatable {
        case none
        case files
        case values([String])
    }

    /// "--format table|json|jsonl", "-j, --jobs N", "--color[=auto|always|never]".
    var synopsis: String {
        let shown = names.count > 1 ? names.dropFirst().joined(separator: ", ") + ", " + names[0] : names[0]
        switch value {
        case .flag: return shown
        case .value(let placeholder): return "\(shown) \(placeholder)"
        case .choice(let values): return "\(shown) \(values.joined(separator: "|"))"
        case .optionalChoice(let values, _): return "\(shown)[=\(values.joined(separator: "|"))]"
        }
    }
}

/// A command line that cannot be run; the message is shown with the usage line (exit 64).
struct UsageError: Error, Equatable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
