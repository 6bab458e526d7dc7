public import FoundationEssentials

/// Apple's device verification: `deviceVerification` is base64(SHA-384(lowercase(nonce) +
/// lowercase(deviceVerificationID))) over UTF-8, where the nonce is the payload's
/// `deviceVerificationNonce` and the ID the device's `AppStore.deviceVerificationID`.
public enum DeviceVerification {
    /// The expected `deviceVerification` for a nonce and a device.
    public static func expected(nonce: String, deviceID: UUID) -> String {
        let input = Array((nonce.lowercased() + deviceID.uuidString.lowercased()).utf8)
        return Data(Digest.sha384(input)).base64EncodedString()
    }

    /// Checks a payload's `deviceVerification` against a device ID.
    ///
    /// - Parameter label: prefix naming the payload in messages ("data.signedTransactionInfo ").
    static func check(_ payload: [String: JSONValue], deviceID: UUID, label: String) -> Check {
        guard case .string(let actual)? = payload["deviceVerification"] else {
            return Check(
                .deviceVerification, passed: false,
                "\(label)deviceVerification is absent; cannot check device \(deviceID.uuidString.lowercased())")
        }
        guard case .string(let nonce)? = payload["deviceVerificationNonce"] else {
            return Check(
                .deviceVerification, passed: false,
                "\(label)deviceVerificationNonce is absent; cannot check deviceVerification")
        }
        let expected = expected(nonce: nonce, deviceID: deviceID)
        return actual == expected
            ? Check(
                .deviceVerification, passed: true,
                "\(label)deviceVerification matches device \(deviceID.uuidString.lowercased())")
            : Check(
                .deviceVerification, passed: false,
                "\(label)deviceVerification is \(actual), expected \(expected) for device "
                    + "\(deviceID.uuidString.lowercased()) and nonce \(nonce)")
    }
}
