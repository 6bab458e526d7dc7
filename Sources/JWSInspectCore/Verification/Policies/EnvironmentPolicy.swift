/// `environment` (`--environment`): the payload's environment (`environment`, `receiptType`,
/// or a notification body's) is the expected one.
struct EnvironmentPolicy: ExpectationPolicy {
    static let name = Check.Name("environment", failing: .wrongEnvironment)
    static let payloadMembers = AppIdentity.payloadMembers

    let expected: Environment

    func decide(token: DecidedToken) -> StepOutcome {
        if token.kind.isDeveloperSigned {
            return .note("environment not compared: a \(token.kind.displayName) names none")
        }
        let identity = token.identity
        if token.isXcode {
            return Self.outcome(
                expected == .xcode, XcodeDetail(payloadSays: identity.environment, expected: expected.rawValue))
        }
        return Self.outcome(
            Exact.same(identity.environment, expected.rawValue),
            Comparison(field: identity.environmentField, actual: identity.environment, expected: expected.rawValue))
    }

    /// Data StoreKit Testing in Xcode signed is Xcode's whatever its payload says: its key is
    /// on every Mac with Xcode, so a payload saying Production proves nothing.
    struct XcodeDetail: CheckDetail {
        let payloadSays: String?
        let expected: String

        var text: String {
            var text = "signed by StoreKit Testing in Xcode, so its environment is Xcode"
            if let payloadSays, !Exact.same(payloadSays, "Xcode") {
                text += " whatever the payload says (\(Excerpt.of(payloadSays)))"
            }
            return expected == "Xcode" ? text : text + "; expected \(expected)"
        }
    }
}

extension EnvironmentPolicy {
    /// The environment a receipt's `receipt_type` (field 0) means: `Production` is Production,
    /// `ProductionSandbox` Sandbox, `Xcode` Xcode.
    static func environment(receiptType: String?) -> Environment? {
        switch Exact.ascii(receiptType) {
        case "Production": .production
        case "ProductionSandbox": .sandbox
        case "Xcode": .xcode
        default: nil
        }
    }

    /// A receipt's `receipt_type`; Xcode's whatever it says when StoreKit Testing in Xcode signed it
    /// (its certificate signs receipts on every Mac).
    func decide(receipt: ReceiptEnvelope, isXcode: Bool) -> StepOutcome {
        let receiptType = receipt.payload.receiptType
        let actual = isXcode ? .xcode : Self.environment(receiptType: receiptType)
        let shown = receiptType.map { type in
            actual.map { Exact.same($0.rawValue, type) ? type : "\(type) (\($0.rawValue))" } ?? type
        }
        let detail: String
        if isXcode, !Exact.same(receiptType, "Xcode") {
            detail =
                "signed by StoreKit Testing in Xcode, so its environment is Xcode whatever receipt_type says ("
                + (receiptType.map { Excerpt.of($0) } ?? "none") + ")"
                + (expected == .xcode ? "" : "; expected \(expected.rawValue)")
        } else if let shown {
            detail =
                actual == expected
                ? "receipt_type is \(shown)" : "receipt_type is \(shown), expected \(expected.rawValue)"
        } else {
            detail = "the receipt has no receipt_type; expected \(expected.rawValue)"
        }
        return Self.outcome(actual == expected, detail)
    }
}

extension EnvironmentPolicy {
    /// A StoreKit 1 transaction receipt's `environment` member (`Sandbox` in a test purchase's),
    /// as written; noted when it has none.
    func decide(transactionReceipt receipt: TransactionReceiptEnvelope) -> StepOutcome {
        guard let actual = receipt.members.first(where: { $0.key == "environment" })?.value.stringValue else {
            return .note("environment not compared: this transaction receipt has no environment member")
        }
        return Self.outcome(
            Exact.same(actual, expected.rawValue),
            Comparison(field: "environment", actual: actual, expected: expected.rawValue))
    }
}

extension Check.Name {
    package static let environment = EnvironmentPolicy.name
}
