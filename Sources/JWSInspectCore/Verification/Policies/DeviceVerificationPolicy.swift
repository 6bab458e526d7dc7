internal import FoundationEssentials

/// `device-verification` (`--device-id`): every transaction or app transaction decided on
/// carries the `deviceVerification` Apple computes for the device (`DeviceVerification`).
struct DeviceVerificationPolicy: ExpectationPolicy {
    static let name = Check.Name("device-verification", failing: .wrongApp)
    static let payloadMembers = ["deviceVerification", "deviceVerificationNonce"]

    let deviceID: UUID

    func decide(token: DecidedToken) -> StepOutcome {
        let carriers = token.decided.filter { $0.kind == .transaction || $0.kind == .appTransaction }
        if carriers.isEmpty {
            return Self.outcome(false, Detail(label: "", deviceID: deviceID, seen: .noCarrier(token.kind)))
        }
        return .several(
            checks: carriers.map { Self.check($0.payload, deviceID: deviceID, label: $0.label) }, notes: [])
    }

    /// Checks a payload's `deviceVerification` against a device ID.
    ///
    /// - Parameter label: prefix naming the payload in messages ("data.signedTransactionInfo ").
    static func check(_ payload: [String: JSONValue], deviceID: UUID, label: String) -> Check {
        guard case .string(let actual)? = payload["deviceVerification"] else {
            return Check(name, passed: false, Detail(label: label, deviceID: deviceID, seen: .noValue))
        }
        guard case .string(let nonce)? = payload["deviceVerificationNonce"] else {
            return Check(name, passed: false, Detail(label: label, deviceID: deviceID, seen: .noNonce))
        }
        let expected = DeviceVerification.expected(nonce: nonce, deviceID: deviceID)
        let seen = Detail.Seen.value(actual, expected: expected, nonce: nonce)
        return Check(name, passed: Exact.same(actual, expected), Detail(label: label, deviceID: deviceID, seen: seen))
    }

    /// What one payload carries for the device, or that there is no payload to look in.
    struct Detail: CheckDetail {
        enum Seen: Sendable {
            case noCarrier(PayloadKind)
            case noValue
            case noNonce
            case value(String, expected: String, nonce: String)
        }

        let label: String
        let deviceID: UUID
        let seen: Seen

        var text: String {
            let device = deviceID.uuidString.lowercased()
            switch seen {
            case .noCarrier(let kind):
                return "\(kind.displayName) carries no deviceVerification to check"
            case .noValue:
                return "\(label)deviceVerification is absent; cannot check device \(device)"
            case .noNonce:
                return "\(label)deviceVerificationNonce is absent; cannot check deviceVerification"
            case .value(let actual, let expected, _) where actual == expected:
                return "\(label)deviceVerification matches device \(device)"
            case .value(let actual, let expected, let nonce):
                return "\(label)deviceVerification is \(actual), expected \(expected) for device \(device) "
                    + "and nonce \(nonce)"
            }
        }
    }
}

extension DeviceVerificationPolicy {
    /// A receipt's `sha1_hash` (field 5): SHA-1 of the device's identifierForVendor,
    /// `opaque_value` (field 4) and the bundle ID's DER (field 2).
    func decide(receipt: ReceiptEnvelope, isXcode: Bool) -> StepOutcome {
        let device = deviceID
        let payload = receipt.payload
        guard let actual = payload.sha1Hash else {
            return .check(
                Check(Self.name, passed: false, "the receipt has no sha1_hash (field 5); cannot check device \(device)")
            )
        }
        guard let expected = payload.deviceHash(identifierForVendor: device) else {
            let missing = payload.opaqueValue == nil ? "opaque_value (field 4)" : "bundle_id (field 2)"
            return .check(
                Check(Self.name, passed: false, "the receipt has no \(missing); cannot check device \(device)"))
        }
        if actual == expected {
            return .check(
                Check(
                    Self.name, passed: true,
                    "sha1_hash matches device \(device) (SHA-1 of its ID, opaque_value, bundle_id)"))
        }
        return .check(
            Check(
                Self.name, passed: false,
                "sha1_hash is \(actual.hexString()), expected \(expected.hexString()) for device \(device) "
                    + "(SHA-1 of its identifierForVendor, opaque_value, bundle_id): issued to another device"))
    }
}

extension DeviceVerificationPolicy {
    /// A StoreKit 1 transaction receipt carries no device verification: noted.
    func decide(transactionReceipt: TransactionReceiptEnvelope) -> StepOutcome {
        .note("device not compared: a StoreKit 1 transaction receipt carries no deviceVerification")
    }
}

extension Check.Name {
    package static let deviceVerification = DeviceVerificationPolicy.name
}
