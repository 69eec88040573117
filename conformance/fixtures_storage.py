"""Fixtures with compute nodes and sharing storage: AllocationFixture,
SharedStorageFixture, NonSharedStorageFixture and GranularFixture (same
names and same data as upstream's; see fixture_api.py for how each write
becomes an HTTP request)."""

import os

from fixture_api import APIFixture, new_uuid


class AllocationFixture(APIFixture):

    def start_fixture(self):
        super(AllocationFixture, self).start_fixture()
        tb = self.api
        os.environ['ALT_USER_ID'] = new_uuid()
        project_id = os.environ['PROJECT_ID']
        user_id = os.environ['USER_ID']
        alt_user_id = os.environ['ALT_USER_ID']

        rp = tb.create_provider(os.environ['RP_NAME'],
                                uuid=os.environ['RP_UUID'])
        tb.add_inventory(rp, 'DISK_GB', 2048,
                         step_size=10, min_unit=10, max_unit=1000)
        tb.add_inventory(rp, 'VCPU', 10, max_unit=10)

        consumer1 = tb.ensure_consumer(user_id, project_id)
        tb.set_allocation(rp, consumer1, {'DISK_GB': 1000})
        os.environ['CONSUMER_0'] = consumer1.uuid

        consumer2 = tb.ensure_consumer(user_id, project_id)
        tb.set_allocation(rp, consumer2, {'VCPU': 6})
        os.environ['CONSUMER_ID'] = consumer2.uuid

        alt_consumer = tb.ensure_consumer(alt_user_id, project_id)
        os.environ['ALT_CONSUMER_ID'] = alt_consumer.uuid
        tb.set_allocation(rp, alt_consumer, {'DISK_GB': 20, 'VCPU': 1})

        os.environ['ALT_RP_UUID'] = new_uuid()
        os.environ['ALT_RP_NAME'] = new_uuid()


class SharedStorageFixture(APIFixture):

    def start_fixture(self):
        super(SharedStorageFixture, self).start_fixture()
        tb = self.api
        agg_uuid = new_uuid()

        cn1 = tb.create_provider('cn1', agg_uuid)
        cn2 = tb.create_provider('cn2', agg_uuid)
        ss = tb.create_provider('ss', agg_uuid)
        ss2 = tb.create_provider('ss2', agg_uuid)

        numa1_1 = tb.create_provider('numa1_1', parent=cn1.uuid)
        numa1_2 = tb.create_provider('numa1_2', parent=cn1.uuid)
        numa2_1 = tb.create_provider('numa2_1', parent=cn2.uuid)
        numa2_2 = tb.create_provider('numa2_2', parent=cn2.uuid)

        pf1_1 = tb.create_provider('pf1_1', parent=numa1_1.uuid)
        pf1_2 = tb.create_provider('pf1_2', parent=numa1_2.uuid)
        pf2_1 = tb.create_provider('pf2_1', parent=numa2_1.uuid)
        pf2_2 = tb.create_provider('pf2_2', parent=numa2_2.uuid)

        os.environ['AGG_UUID'] = agg_uuid
        os.environ['CN1_UUID'] = cn1.uuid
        os.environ['CN2_UUID'] = cn2.uuid
        os.environ['SS_UUID'] = ss.uuid
        os.environ['SS2_UUID'] = ss2.uuid
        os.environ['NUMA1_1_UUID'] = numa1_1.uuid
        os.environ['NUMA1_2_UUID'] = numa1_2.uuid
        os.environ['NUMA2_1_UUID'] = numa2_1.uuid
        os.environ['NUMA2_2_UUID'] = numa2_2.uuid
        os.environ['PF1_1_UUID'] = pf1_1.uuid
        os.environ['PF1_2_UUID'] = pf1_2.uuid
        os.environ['PF2_1_UUID'] = pf2_1.uuid
        os.environ['PF2_2_UUID'] = pf2_2.uuid

        for cn in (cn1, cn2):
            tb.add_inventory(cn, 'VCPU', 24, allocation_ratio=16.0)
            tb.add_inventory(cn, 'MEMORY_MB', 128 * 1024,
                             allocation_ratio=1.5)

        tb.set_traits(cn1, 'HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2')
        tb.add_inventory(cn2, 'DISK_GB', 2000,
                         reserved=100, allocation_ratio=1.0)

        for shared in (ss, ss2):
            tb.add_inventory(shared, 'DISK_GB', 2000,
                             reserved=100, allocation_ratio=1.0)
            tb.set_traits(shared, 'MISC_SHARES_VIA_AGGREGATE')

        for pf in (pf1_1, pf1_2, pf2_1, pf2_2):
            tb.add_inventory(pf, 'SRIOV_NET_VF', 8, allocation_ratio=1.0)


class NonSharedStorageFixture(APIFixture):

    def start_fixture(self):
        super(NonSharedStorageFixture, self).start_fixture()
        tb = self.api
        os.environ['AGGA_UUID'] = new_uuid()
        os.environ['AGGB_UUID'] = new_uuid()
        os.environ['AGGC_UUID'] = new_uuid()

        cn1 = tb.create_provider('cn1')
        cn2 = tb.create_provider('cn2')
        cn3 = tb.create_provider('cn3')
        os.environ['CN1_UUID'] = cn1.uuid
        os.environ['CN2_UUID'] = cn2.uuid
        os.environ['CN3_UUID'] = cn3.uuid

        for cn in (cn1, cn2, cn3):
            tb.add_inventory(cn, 'VCPU', 24)
            tb.add_inventory(cn, 'MEMORY_MB', 128 * 1024)
            tb.add_inventory(cn, 'DISK_GB', 2000)


class GranularFixture(APIFixture):

    def start_fixture(self):
        super(GranularFixture, self).start_fixture()
        tb = self.api
        tb.create_rc('CUSTOM_NET_MBPS')

        aggA, aggB, aggC = new_uuid(), new_uuid(), new_uuid()
        os.environ['AGGA'] = aggA
        os.environ['AGGB'] = aggB
        os.environ['AGGC'] = aggC

        cn_left = tb.create_provider('cn_left', aggA)
        os.environ['CN_LEFT'] = cn_left.uuid
        tb.add_inventory(cn_left, 'VCPU', 8)
        tb.add_inventory(cn_left, 'MEMORY_MB', 4096)
        tb.add_inventory(cn_left, 'DISK_GB', 500)
        tb.add_inventory(cn_left, 'VGPU', 8)
        tb.add_inventory(cn_left, 'SRIOV_NET_VF', 8)
        tb.add_inventory(cn_left, 'CUSTOM_NET_MBPS', 4000)
        tb.set_traits(cn_left, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2',
                      'HW_GPU_API_DXVA', 'HW_NIC_DCB_PFC', 'CUSTOM_FOO')

        cn_middle = tb.create_provider('cn_middle', aggA, aggB)
        os.environ['CN_MIDDLE'] = cn_middle.uuid
        tb.add_inventory(cn_middle, 'VCPU', 8)
        tb.add_inventory(cn_middle, 'MEMORY_MB', 4096)
        tb.add_inventory(cn_middle, 'SRIOV_NET_VF', 8)
        tb.add_inventory(cn_middle, 'CUSTOM_NET_MBPS', 4000)
        tb.set_traits(cn_middle, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2',
                      'HW_CPU_X86_SSE', 'HW_NIC_ACCEL_TLS')

        cn_right = tb.create_provider('cn_right', aggB, aggC)
        os.environ['CN_RIGHT'] = cn_right.uuid
        tb.add_inventory(cn_right, 'VCPU', 8)
        tb.add_inventory(cn_right, 'MEMORY_MB', 4096)
        tb.add_inventory(cn_right, 'DISK_GB', 500)
        tb.add_inventory(cn_right, 'VGPU', 8, max_unit=2)
        tb.set_traits(cn_right, 'HW_CPU_X86_MMX', 'HW_GPU_API_DXVA',
                      'CUSTOM_DISK_SSD')

        shr_disk_1 = tb.create_provider('shr_disk_1', aggA)
        os.environ['SHR_DISK_1'] = shr_disk_1.uuid
        tb.add_inventory(shr_disk_1, 'DISK_GB', 1000)
        tb.set_traits(shr_disk_1, 'MISC_SHARES_VIA_AGGREGATE',
                      'CUSTOM_DISK_SSD')

        shr_disk_2 = tb.create_provider('shr_disk_2', aggA, aggB)
        os.environ['SHR_DISK_2'] = shr_disk_2.uuid
        tb.add_inventory(shr_disk_2, 'DISK_GB', 1000)
        tb.set_traits(shr_disk_2, 'MISC_SHARES_VIA_AGGREGATE')

        shr_net = tb.create_provider('shr_net', aggC)
        os.environ['SHR_NET'] = shr_net.uuid
        tb.add_inventory(shr_net, 'SRIOV_NET_VF', 16)
        tb.add_inventory(shr_net, 'CUSTOM_NET_MBPS', 40000)
        tb.set_traits(shr_net, 'MISC_SHARES_VIA_AGGREGATE')
