package import FoundationEssentials

/// Apple's device verification: `deviceVerification` is base64(SHA-384(lowercase(nonce) +
/// lowercase(deviceVerificationID))) over UTF-8, where the nonce is the payload's
/// `deviceVerificationNonce` and the ID the device's `AppStore.deviceVerificationID`.
package enum DeviceVerification {
    /// The expected `deviceVerification` for a nonce and a device.
    package static func expected(nonce: String, deviceID: UUID) -> String {
        let input = Array((nonce.lowercased() + deviceID.uuidString.lowercased()).utf8)
        return Data(Digest.sha384(input)).base64EncodedString()
    }
}
