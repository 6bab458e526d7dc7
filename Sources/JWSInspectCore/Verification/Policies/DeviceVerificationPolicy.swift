/// `device-verification` (`--device-id`): every transaction or app transaction decided on
/// carries the `deviceVerification` Apple computes for the device (`DeviceVerification`).
enum DeviceVerificationPolicy: VerifierPolicy {
    static let name = Check.Name.deviceVerification
    static let failureStatus = Status.wrongApp
    static let payloadMembers = ["deviceVerification", "deviceVerificationNonce"]

    static func apply(to run: inout Run) {
        guard let deviceID = run.options.deviceVerificationID else { return }
        run.expectationsChecked = true
        let carriers = run.subjects.filter { $0.kind == .transaction || $0.kind == .appTransaction }
        if carriers.isEmpty {
            run.record(name, false, "\(run.kind.displayName) carries no deviceVerification to check")
        }
        for subject in carriers {
            run.record(DeviceVerification.check(subject.payload, deviceID: deviceID, label: subject.label))
        }
    }
}
