internal import JWSInspectCore

/// The core's hints worded with this command line's option names: a message that says what to
/// give (`Hint.needsRoot`) names the option that gives it (`--root`).
struct OptionHints: HintWording {
    func word(_ hint: Hint) -> String {
        switch hint {
        case .givenRoot: "--root"
        case .needsRoot(let file): "--root \(file)"
        case .givenKey: "--key"
        case .needsKey(let kid): "--key AuthKey_\(kid).p8"
        case .needsKeyID: "--key-id"
        case .fixedTime: "--at"
        case .decodeOnly: "--no-verify"
        case .environment(let name): "--environment \(name)"
        case .resultLimit: "--limit"
        case .statusWait: "--wait"
        case .fetchTransaction(let id): "jwsinspect fetch transaction \(id)"
        }
    }

    /// What a verdict valid at the signing time and not now means, after the warning and its detail.
    static let validityNowAdvice = "the verdict follows the signing time (use --at now to require current validity)"
}
