/// Something a caller can give or ask for, named where a message points at it ("give the key
/// with …", "a trusted root (…)"). The core names the hint; whoever shows the message words it
/// (`HintWording`): the command line with its option names (`--root`, `--key`), a library caller
/// in its own terms. The core knows no option names.
package enum Hint: Sendable, Hashable {
    /// The trusted roots the caller gave (`--root`).
    case givenRoot
    /// A certificate file to give as a trusted root (`--root StoreKitTestCertificate.cer`).
    case needsRoot(file: String)
    /// The developer keys the caller gave (`--key`).
    case givenKey
    /// The private key file of the developer key `kid` (`--key AuthKey_KID.p8`).
    case needsKey(kid: String)
    /// A developer's public key given with its key ID (`--key-id`).
    case needsKeyID
    /// The fixed moment the caller asked certificates to be checked at (`--at`).
    case fixedTime
    /// Decoding only, nothing cryptographic checked (`--no-verify`).
    case decodeOnly
    /// Asking the App Store Server API's other environment, by its name (`--environment Sandbox`).
    case environment(String)
    /// A bound on how many results a fetch asks for (`--limit`).
    case resultLimit
    /// How long a fetch waits for a test notification's status (`--wait`).
    case statusWait
    /// Asking Apple about a transaction by its ID (`jwsinspect fetch transaction ID`: Get
    /// Transaction Info), what verifies a StoreKit 1 transaction receipt's transaction.
    case fetchTransaction(id: String)
}

/// Words a `Hint` for the messages a verifier writes (`VerificationOptions.hints`).
package protocol HintWording: Sendable {
    func word(_ hint: Hint) -> String
}

/// The words a caller gets when it brings none: plain terms, no option names.
package struct PlainHints: HintWording {
    package init() {}

    package func word(_ hint: Hint) -> String {
        switch hint {
        case .givenRoot: "the trusted roots"
        case .needsRoot(let file): "\(file) as a trusted root"
        case .givenKey: "developer key"
        case .needsKey(let kid): "its private key AuthKey_\(kid).p8"
        case .needsKeyID: "its key ID"
        case .fixedTime: "fixed time"
        case .decodeOnly: "not verifying"
        case .environment(let name): "the \(name) environment"
        case .resultLimit: "a result limit"
        case .statusWait: "wait"
        case .fetchTransaction(let id): "ask the App Store Server API's Get Transaction Info for \(id)"
        }
    }
}
