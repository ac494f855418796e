package org.slurmautoresume.nodeops.admin;

/** What an admin command asks of a node. */
public enum NodeOperation {
    /** {@code state=fail reason=Action:Replace}; forced: {@code state=down}, which kills its jobs. */
    REPLACE("replace"),
    /** {@code scontrol reboot ASAP nextstate=RESUME reason=Action:Reboot}. */
    REBOOT("reboot"),
    /** {@code state=resume}. */
    RESUME("resume");

    private final String word;

    NodeOperation(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }
}
