import ConfabClient

extension OperationMethod {
    /// Whether a browser may ask it. The page is the person's, but a page is also where a
    /// script in a message would run if anything let it: operations that read or write
    /// arbitrary paths on this machine stay with the terminal (files travel through the
    /// app's own routes), and `changed`/`send_lines` serve other processes and pipes. The
    /// switch is exhaustive, so a new operation is decided here.
    var offeredToBrowsers: Bool {
        switch self {
        case .sendFile, .saveFile, .changed, .sendLines: false
        case .status, .peers, .send, .acceptFile, .create, .edit, .unsend, .react, .changeMembers, .leave,
            .markRead, .setFlag, .delete, .setTrust, .typing, .resync, .conversations, .conversation, .history,
            .message, .lastOwnMessage, .search, .members, .files, .knownPeers, .typingSetting, .join, .rooms,
            .safetyNumber, .addPeer, .setName, .doctor, .devices, .removeDevice, .linkOffer, .linkConfirm, .linkCancel:
            true
        }
    }
}
